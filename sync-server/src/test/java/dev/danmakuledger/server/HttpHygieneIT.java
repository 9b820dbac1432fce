package dev.danmakuledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.danmakuledger.protocol.error.Problem;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.testkit.TestDevice;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * HTTP semantics of the sync server over real sockets (docs/openapi.yaml, RFC 9110): HEAD answers
 * as GET without a body, other methods 405 with {@code Allow}, numbers are strict decimals, tile
 * paths are canonical (C2SP tlog-tiles), and every error, the container's own included, is UTF-8
 * problem+json (RFC 9457).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
final class HttpHygieneIT {
  static final String ROOM = "hygiene-" + UUID.randomUUID().toString().substring(0, 8);

  SyncServer server;
  Api api;

  @BeforeAll
  void start(@TempDir Path dir) {
    server = SyncServer.start(ServerConfig.builder(dir).roomLog(false).build());
    api = new Api(server.baseUri(), server.adminToken());
    TestDevice d = api.enrollNew(server.enrollToken());
    List<DanmakuRecord> records = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      records.add(d.record(ROOM, "u" + i, "message " + i));
    }
    api.sync(d, d.batch(records.toArray(new DanmakuRecord[0])));
    assertEquals(4, server.integrateNow());
  }

  @AfterAll
  void stop() {
    server.close();
  }

  String admin() {
    return "Authorization: Bearer " + server.adminToken() + "\r\n";
  }

  RawHttp.Reply raw(String method, String target) {
    return RawHttp.send(server.baseUri(), method, target, admin());
  }

  static JsonNode problem(RawHttp.Reply r) {
    assertTrue(
        r.header("Content-Type") != null && r.header("Content-Type").startsWith(Problem.MEDIA_TYPE),
        "want problem+json: " + r.head());
    try {
      return Api.JSON.readTree(r.body());
    } catch (java.io.IOException e) {
      throw new AssertionError("not JSON: " + r, e);
    }
  }

  @ParameterizedTest
  @MethodSource("readable")
  void headAnswersAsGetWithoutABody(String target) {
    RawHttp.Reply get = raw("GET", target);
    RawHttp.Reply head = raw("HEAD", target);
    assertEquals(get.status(), head.status(), target + ": GET " + get + ", HEAD " + head);
    assertEquals(0, head.body().length, target + ": HEAD body " + head.text());
  }

  Stream<String> readable() {
    return Stream.of(
        "/healthz",
        "/v1/rooms/nope/log/checkpoint",
        "/v1/rooms/" + ROOM + "/log/checkpoint",
        "/v1/rooms/" + ROOM + "/log/tile/0/000.p/4",
        "/v1/rooms/" + ROOM + "/messages/9",
        "/v1/devices/nobody/log",
        "/v1/rooms/" + ROOM + "/messages/+1/bundle",
        "/admin/history?minutes=0");
  }

  @Test
  void headOfAMissingRoomLogIs404() {
    assertEquals(404, raw("HEAD", "/v1/rooms/nope/log/checkpoint").status());
  }

  @ParameterizedTest
  @MethodSource("otherMethods")
  void otherMethodsAre405WithAllow(String method, String target, String allow) {
    RawHttp.Reply r = raw(method, target);
    assertEquals(405, r.status(), method + " " + target + " -> " + r);
    assertEquals(allow, r.header("Allow"), method + " " + target);
    if (!method.equals("HEAD")) {
      assertEquals("method-not-allowed", problem(r).path("code").asText(), r.toString());
    }
  }

  static Stream<Arguments> otherMethods() {
    return Stream.of(
        Arguments.of("OPTIONS", "/healthz", "GET, HEAD"),
        Arguments.of("PUT", "/v1/rooms/r/log/checkpoint", "GET, HEAD"),
        Arguments.of("TRACE", "/healthz", "GET, HEAD"),
        Arguments.of("DELETE", "/v1/devices/d/log", "GET, HEAD"),
        Arguments.of("PATCH", "/admin/review/1", "POST"),
        Arguments.of("GET", "/v1/devices/d/batches", "POST"),
        Arguments.of("HEAD", "/v1/devices", "POST"));
  }

  @ParameterizedTest
  @MethodSource("nonCanonicalNumbers")
  void nonCanonicalNumbersAre400(String target, String header) {
    RawHttp.Reply r = RawHttp.send(server.baseUri(), "GET", target, admin() + header);
    assertEquals(400, r.status(), target + " " + header + " -> " + r);
    JsonNode p = problem(r);
    assertEquals("invalid-field", p.path("code").asText(), r.toString());
    assertTrue(p.path("detail").asText().contains("want"), r.toString());
  }

  static Stream<Arguments> nonCanonicalNumbers() {
    String arabicFive = "%D9%A5";
    String arabicThree = "%D9%A3";
    return Stream.of(
        Arguments.of("/v1/rooms/r/messages/+1/bundle", ""),
        Arguments.of("/v1/rooms/r/messages/01/bundle", ""),
        Arguments.of("/v1/rooms/r/messages/%201", ""),
        Arguments.of("/v1/rooms/r/messages/9223372036854775808", ""),
        Arguments.of("/v1/rooms/r/messages/00000000000000000000001", ""),
        Arguments.of("/admin/history?minutes=+5", ""),
        Arguments.of("/admin/history?minutes=05", ""),
        Arguments.of("/admin/history?minutes=" + arabicFive, ""),
        Arguments.of("/admin/review?limit=" + arabicThree, ""),
        Arguments.of("/v1/rooms/r/messages?after=-0", ""),
        Arguments.of("/v1/devices/d/acks?from=1e3", ""),
        Arguments.of("/v1/rooms/r/stream", "Last-Event-ID: +3\r\n"),
        Arguments.of("/v1/rooms/r/stream", "Last-Event-ID: 03\r\n"));
  }

  @Test
  void canonicalNumbersAtTheirBoundsAreAccepted() {
    assertEquals(200, raw("GET", "/admin/history?minutes=1").status());
    assertEquals(200, raw("GET", "/admin/review?limit=1000").status());
    assertEquals(400, raw("GET", "/admin/review?limit=1001").status());
    assertEquals(200, raw("GET", "/v1/rooms/r/messages?after=0").status());
    assertEquals(404, raw("GET", "/v1/rooms/r/messages/9223372036854775807").status());
  }

  @ParameterizedTest
  @MethodSource("nonCanonicalTiles")
  void nonCanonicalTilePathsAre404(String tail) {
    String prefix = "/v1/rooms/" + ROOM + "/log/";
    assertEquals(200, raw("GET", prefix + "tile/0/000.p/4").status());
    RawHttp.Reply r = raw("GET", prefix + tail);
    assertEquals(404, r.status(), tail + " -> " + r);
    assertEquals("not-found", problem(r).path("code").asText());
  }

  static Stream<String> nonCanonicalTiles() {
    return Stream.of(
        "tile/0/000.p/4/", "tile/0/000%2ep%2f4", "tile/0/000%2Ep/4", "tile/entries/000.p/4/");
  }

  @Test
  void problemBodiesAreUtf8() {
    RawHttp.Reply r = raw("GET", "/v1/devices/kiosk-%C3%A9/log");
    assertEquals(400, r.status(), r.toString());
    JsonNode p = problem(r);
    assertTrue(p.path("detail").asText().contains("kiosk-é"), r.toString());
    byte[] utf8 = "kiosk-é".getBytes(StandardCharsets.UTF_8);
    assertTrue(indexOf(r.body(), utf8) >= 0, "want UTF-8 bytes of kiosk-é in " + r.text());
  }

  @Test
  void tooLargeHeadersAre431ProblemJson() {
    String big = "X-Filler: " + "a".repeat(64 * 1024) + "\r\n";
    RawHttp.Reply r = RawHttp.send(server.baseUri(), "GET", "/healthz", big);
    assertEquals(431, r.status(), r.head());
    assertEquals("headers-too-large", problem(r).path("code").asText(), r.toString());
  }

  @ParameterizedTest
  @MethodSource("badRequests")
  void containerLevelBadRequestsAre400ProblemJson(String requestLine) {
    byte[] req =
        (requestLine + "\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            .getBytes(StandardCharsets.UTF_8);
    RawHttp.Reply r = RawHttp.exchange(server.baseUri(), req);
    assertEquals(400, r.status(), requestLine + " -> " + r);
    JsonNode p = problem(r);
    assertEquals(400, p.path("status").asInt(), r.toString());
    assertNotNull(p.path("code").asText(null), r.toString());
  }

  static Stream<String> badRequests() {
    return Stream.of(
        "GET /v1/rooms/a%00b/log/checkpoint HTTP/1.1",
        "GET /v1/rooms/%zz/log/checkpoint HTTP/1.1",
        "GET /v1/rooms/a\u0000b/log/checkpoint HTTP/1.1",
        "GET healthz HTTP/1.1");
  }

  private static int indexOf(byte[] hay, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= hay.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (hay[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
