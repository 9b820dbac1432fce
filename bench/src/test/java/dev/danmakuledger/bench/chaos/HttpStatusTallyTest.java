package dev.danmakuledger.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The proxy's count of responses and 5xx, fed the bytes a server would send, in pieces. */
class HttpStatusTallyTest {
  private static void respond(HttpStatusTally tally, String response, int piece) {
    byte[] b = response.getBytes(StandardCharsets.ISO_8859_1);
    HttpStatusTally.Sniffer s = tally.sniffer();
    for (int i = 0; i < b.length; i += piece) {
      byte[] chunk = java.util.Arrays.copyOfRange(b, i, Math.min(b.length, i + piece));
      s.feed(chunk, chunk.length);
    }
    s.finish();
    s.finish(); // a second finish counts nothing more
  }

  @Test
  void countsEveryResponseAndEach5xxByCodeAndRetryAfter() {
    HttpStatusTally t = new HttpStatusTally();
    respond(t, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}", 7);
    respond(
        t,
        "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 2\r\n\r\n"
            + "{\"type\":\"x\",\"status\":503,\"code\":\"redis-unavailable\"}",
        5);
    respond(t, "HTTP/1.1 500 Server Error\r\n\r\n{\"code\":\"internal\"}", 3);
    respond(t, "HTTP/1.1 503 Service Unavailable\r\n\r\n{\"code\":\"sql-unavailable\"}", 64);
    respond(t, "HTTP/1.1 502 Bad Gateway\r\n\r\n", 64);
    assertEquals(5, t.responses());
    assertEquals(
        Map.of(
            "503 redis-unavailable retry-after", 1L,
            "500 internal", 1L,
            "503 sql-unavailable", 1L,
            "502 -", 1L),
        t.serverErrors());
  }

  @Test
  void onlyThe503OutageAnswerWithRetryAfterIsAccepted() {
    assertTrue(HttpStatusTally.isOutageAnswer("503 redis-unavailable retry-after"));
    assertTrue(HttpStatusTally.isOutageAnswer("503 sql-unavailable retry-after"));
    assertFalse(HttpStatusTally.isOutageAnswer("503 sql-unavailable"));
    assertFalse(HttpStatusTally.isOutageAnswer("500 internal"));
    assertFalse(HttpStatusTally.isOutageAnswer("503 - retry-after"));
  }

  @Test
  void streamsThatAreNotHttpAreNotCounted() {
    HttpStatusTally t = new HttpStatusTally();
    respond(t, "+OK\r\n$5\r\nhello\r\n", 4);
    respond(t, "", 1);
    respond(t, "HTTP/1.1 5", 64); // cut before the status code was whole
    assertEquals(0, t.responses());
    assertTrue(t.serverErrors().isEmpty());
  }
}
