package dev.danmakuledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.danmakuledger.protocol.error.Problem;
import dev.danmakuledger.protocol.wire.BatchRequest;
import dev.danmakuledger.protocol.wire.BatchResponse;
import dev.danmakuledger.protocol.wire.LogState;
import dev.danmakuledger.testkit.TestDevice;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Request bodies in {@code Content-Encoding: gzip} over real sockets (docs/sync.md, "Compressed
 * batches"): announced on every response, decoded up to the body limit and no further, refused with
 * a problem+json saying what to do when they do not decode or use another coding; bodies without a
 * coding work as before.
 */
final class CompressedBodyIT {
  static final long MAX_BODY = 16 * 1024;
  static final String ROOM = "gz-room";

  @TempDir static Path dir;
  static SyncServer server;
  static Api api;
  static final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void start() {
    server = SyncServer.start(ServerConfig.builder(dir).maxBodyBytes(MAX_BODY).build());
    api = new Api(server.baseUri(), server.adminToken());
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  static byte[] gzip(byte[] data) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream g = new GZIPOutputStream(out)) {
      g.write(data);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  static byte[] json(Object o) {
    try {
      return Api.JSON.writeValueAsBytes(o);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code body} followed by JSON whitespace up to {@code length} bytes. */
  static byte[] paddedTo(byte[] body, long length) {
    byte[] out = Arrays.copyOf(body, (int) length);
    Arrays.fill(out, body.length, out.length, (byte) ' ');
    return out;
  }

  static HttpResponse<String> post(TestDevice d, byte[] body, String contentEncoding) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(server.baseUri().resolve("/v1/devices/" + d.id + "/batches"))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    if (contentEncoding != null) {
      b.header("Content-Encoding", contentEncoding);
    }
    try {
      return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  static JsonNode problem(HttpResponse<String> r, int status, String code) {
    assertEquals(status, r.statusCode(), r.body());
    assertEquals(Problem.MEDIA_TYPE, r.headers().firstValue("Content-Type").orElse(""));
    try {
      JsonNode p = Api.JSON.readTree(r.body());
      assertEquals(code, p.path("code").asText(), r.body());
      return p;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static long verified(TestDevice d) {
    return api.get("/v1/devices/" + d.id + "/log").as(LogState.class).verifiedSize();
  }

  @Test
  void everyResponseAnnouncesGzip() throws Exception {
    for (String path : new String[] {"/healthz", "/v1/devices/nobody/log", "/no/such/path"}) {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(URI.create(server.baseUri() + path)).GET().build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals("gzip", r.headers().firstValue("Accept-Encoding").orElse(null), path);
    }
  }

  @Test
  void roundTrip() {
    TestDevice d = api.enrollNew(server.enrollToken());
    BatchRequest batch = d.batch(d.record(ROOM, "u1", "压缩了吗？"), d.record(ROOM, "u2", "gzip 🎉"));
    HttpResponse<String> r = post(d, gzip(json(batch)), "gzip");
    assertEquals(200, r.statusCode(), r.body());
    assertEquals(2, verified(d));
    BatchResponse again = api.batch(d, batch).as(BatchResponse.class);
    assertEquals(2, again.outcomes().size(), "the same batch uncompressed is answered alike");
  }

  @Test
  void bodyWithoutACodingStillWorks() {
    TestDevice d = api.enrollNew(server.enrollToken());
    assertEquals(200, post(d, json(d.batch(d.record(ROOM, "u", "plain"))), null).statusCode());
    assertEquals(1, verified(d));
  }

  @Test
  void decodedExactlyAtTheLimitIsTakenOneByteMoreIs413() {
    TestDevice d = api.enrollNew(server.enrollToken());
    byte[] body = json(d.batch(d.record(ROOM, "u", "at the limit")));
    HttpResponse<String> over = post(d, gzip(paddedTo(body, MAX_BODY + 1)), "gzip");
    JsonNode p = problem(over, 413, "body-too-large");
    assertTrue(p.path("detail").asText().contains("send smaller batches"), p.toString());
    assertEquals(MAX_BODY, p.path("maxBodyBytes").asLong(), p.toString());
    assertEquals(0, verified(d));
    byte[] atLimit = gzip(paddedTo(body, MAX_BODY));
    assertTrue(atLimit.length < MAX_BODY / 10, "compressed: " + atLimit.length);
    assertEquals(200, post(d, atLimit, "gzip").statusCode());
    assertEquals(1, verified(d));
  }

  @Test
  void bombIs413() {
    TestDevice d = api.enrollNew(server.enrollToken());
    problem(post(d, gzip(new byte[10 * 1024 * 1024]), "gzip"), 413, "body-too-large");
  }

  @Test
  void malformedGzipIs400() {
    TestDevice d = api.enrollNew(server.enrollToken());
    byte[] body = json(d.batch(d.record(ROOM, "u", "malformed")));
    JsonNode p = problem(post(d, body, "gzip"), 400, "malformed-request");
    assertTrue(p.path("detail").asText().contains("not valid gzip"), p.toString());
    byte[] flipped = gzip(body);
    flipped[flipped.length - 8] ^= 1;
    problem(post(d, flipped, "gzip"), 400, "malformed-request");
    assertEquals(0, verified(d));
  }

  @Test
  void truncatedGzipIs400() {
    TestDevice d = api.enrollNew(server.enrollToken());
    byte[] body = gzip(json(d.batch(d.record(ROOM, "u", "truncated"))));
    problem(post(d, Arrays.copyOf(body, body.length - 4), "gzip"), 400, "malformed-request");
    problem(post(d, Arrays.copyOf(body, body.length / 2), "gzip"), 400, "malformed-request");
    assertEquals(0, verified(d));
  }

  @Test
  void anotherCodingIs415AndNamesGzip() {
    TestDevice d = api.enrollNew(server.enrollToken());
    byte[] body = json(d.batch(d.record(ROOM, "u", "brotli")));
    for (String coding : new String[] {"br", "deflate", "gzip, gzip"}) {
      HttpResponse<String> r = post(d, body, coding);
      problem(r, 415, "unsupported-media-type");
      assertEquals("gzip", r.headers().firstValue("Accept-Encoding").orElse(null), coding);
    }
    assertEquals(0, verified(d));
  }

  @Test
  void enrolmentMayBeCompressedToo() {
    TestDevice d = TestDevice.create("gz-enrol");
    HttpRequest req =
        HttpRequest.newBuilder(server.baseUri().resolve("/v1/devices"))
            .header("Content-Type", "application/json")
            .header("Content-Encoding", "gzip")
            .POST(
                HttpRequest.BodyPublishers.ofByteArray(
                    gzip(json(d.enrollRequest(server.enrollToken())))))
            .build();
    try {
      assertEquals(200, http.send(req, HttpResponse.BodyHandlers.ofString()).statusCode());
    } catch (IOException | InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }
}
