package dev.danmakuledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.danmakuledger.protocol.error.Problem;
import dev.danmakuledger.protocol.wire.BatchRequest;
import dev.danmakuledger.protocol.wire.BatchResponse;
import dev.danmakuledger.protocol.wire.BinaryBatch;
import dev.danmakuledger.protocol.wire.LogState;
import dev.danmakuledger.protocol.wire.WireRecord;
import dev.danmakuledger.server.http.HttpApi;
import dev.danmakuledger.testkit.TestDevice;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Binary batch bodies over real sockets (docs/sync.md, "Binary batches"): announced in {@code
 * Accept-Post} by the batch and log endpoints, taken as the JSON batch they encode, in gzip too;
 * hostile framing is a 400 {@code malformed-request} and stores nothing; more records than {@code
 * --max-records} is the same 413 as for JSON.
 */
final class BinaryBatchIT {
  static final int MAX_RECORDS = 3;
  static final String ROOM = "bin-room";

  @TempDir static Path dir;
  static SyncServer server;
  static Api api;
  static final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void start() {
    server = SyncServer.start(ServerConfig.builder(dir).maxRecordsPerBatch(MAX_RECORDS).build());
    api = new Api(server.baseUri(), server.adminToken());
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  /** The binary body of {@code batch}, as an agent encodes it. */
  static byte[] binary(BatchRequest batch) {
    List<byte[]> records = new ArrayList<>();
    for (WireRecord r : batch.records()) {
      records.add(r.canonicalBytes());
    }
    return BinaryBatch.encode(head(batch), records);
  }

  static byte[] head(BatchRequest batch) {
    return CompressedBodyIT.json(
        new BatchRequest(batch.oldSize(), List.of(), batch.checkpoint(), batch.metadata()));
  }

  static HttpResponse<String> post(TestDevice d, byte[] body, String contentEncoding) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(server.baseUri().resolve("/v1/devices/" + d.id + "/batches"))
            .header("Content-Type", BinaryBatch.MEDIA_TYPE)
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
  void logAndBatchAnswersNameTheBinaryBodyInAcceptPost() throws Exception {
    TestDevice d = api.enrollNew(server.enrollToken());
    HttpResponse<String> log =
        http.send(
            HttpRequest.newBuilder(URI.create(server.baseUri() + "/v1/devices/" + d.id + "/log"))
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertEquals(HttpApi.ACCEPT_POST, log.headers().firstValue("Accept-Post").orElse(null));
    HttpResponse<String> batch = post(d, binary(d.batch(d.record(ROOM, "u", "announce"))), null);
    assertEquals(200, batch.statusCode(), batch.body());
    assertEquals(HttpApi.ACCEPT_POST, batch.headers().firstValue("Accept-Post").orElse(null));
    assertTrue(HttpApi.ACCEPT_POST.contains(BinaryBatch.MEDIA_TYPE));
  }

  @Test
  void binaryInGzipIsTheSameBatchAsItsJson() {
    TestDevice d = api.enrollNew(server.enrollToken());
    BatchRequest batch = d.batch(d.record(ROOM, "u1", "二进制"), d.record(ROOM, "u2", "bin 🎉"));
    HttpResponse<String> r = post(d, CompressedBodyIT.gzip(binary(batch)), "gzip");
    assertEquals(200, r.statusCode(), r.body());
    assertEquals(2, verified(d));
    BatchResponse again = api.batch(d, batch).as(BatchResponse.class);
    assertEquals(2, again.outcomes().size(), "the same batch in JSON is answered alike");
    assertEquals("true", api.batch(d, batch).header("Idempotent-Replayed"));
  }

  @Test
  void recordsAtTheLimitAreTakenOneMoreIsTheSame413AsJson() {
    TestDevice d = api.enrollNew(server.enrollToken());
    BatchRequest four =
        d.batch(
            d.record(ROOM, "u", "1"),
            d.record(ROOM, "u", "2"),
            d.record(ROOM, "u", "3"),
            d.record(ROOM, "u", "4"));
    JsonNode p = problem(post(d, binary(four), null), 413, "too-many-records");
    assertEquals(MAX_RECORDS, p.path("maxRecords").asInt(), p.toString());
    assertEquals(0, verified(d));
    TestDevice e = api.enrollNew(server.enrollToken());
    BatchRequest three =
        e.batch(e.record(ROOM, "u", "1"), e.record(ROOM, "u", "2"), e.record(ROOM, "u", "3"));
    assertEquals(200, post(e, binary(three), null).statusCode());
    assertEquals(3, verified(e));
  }

  @Test
  void brokenFramingIs400AndStoresNothing() {
    TestDevice d = api.enrollNew(server.enrollToken());
    byte[] body = binary(d.batch(d.record(ROOM, "u", "a"), d.record(ROOM, "u", "b")));
    List<byte[]> hostile =
        List.of(
            new byte[0],
            Arrays.copyOf(body, body.length - 1),
            Arrays.copyOf(body, body.length + 1),
            Arrays.copyOf(body, 6),
            ByteBuffer.allocate(8).putInt(-1).putInt(0).array(),
            ByteBuffer.allocate(8).putInt(0).putInt(0).array(),
            "{\"oldSize\":0}".getBytes(StandardCharsets.UTF_8));
    for (byte[] b : hostile) {
      JsonNode p = problem(post(d, b, null), 400, "malformed-request");
      assertTrue(p.path("detail").asText().contains("Binary batches"), p.toString());
    }
    assertEquals(0, verified(d));
  }

  @Test
  void aHeadThatIsNotABatchIsMalformedJson() {
    TestDevice d = api.enrollNew(server.enrollToken());
    BatchRequest batch = d.batch(d.record(ROOM, "u", "head"));
    byte[] notJson =
        BinaryBatch.encode("{oops".getBytes(StandardCharsets.UTF_8), List.of(new byte[] {1}));
    problem(post(d, notJson, null), 400, "malformed-json");
    byte[] unknownMember =
        BinaryBatch.encode(
            "{\"oldSize\":0,\"records\":[],\"checkpoint\":\"c\",\"extra\":1}"
                .getBytes(StandardCharsets.UTF_8),
            List.of(new byte[] {1}));
    problem(post(d, unknownMember, null), 400, "malformed-json");
    List<byte[]> records = List.of(batch.records().get(0).canonicalBytes());
    byte[] recordsInTheHead = BinaryBatch.encode(CompressedBodyIT.json(batch), records);
    problem(post(d, recordsInTheHead, null), 400, "invalid-field");
    assertEquals(0, verified(d));
  }

  @Test
  void aBinaryBombIs413LikeAnyGzipBody() {
    TestDevice d = api.enrollNew(server.enrollToken());
    problem(
        post(d, CompressedBodyIT.gzip(new byte[10 * 1024 * 1024]), "gzip"), 413, "body-too-large");
  }
}
