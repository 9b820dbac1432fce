package dev.danmakuledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.danmakuledger.protocol.error.Problem;
import dev.danmakuledger.server.http.HttpLimits;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Admission limits of the HTTP listener at their boundaries (docs/operations.md, "Admission
 * limits"), over real sockets: slow request bodies from one address or many are refused at once
 * past their bound with 429 or 503, cut off with 408 when too slow or silent, and oversized headers
 * are 431 — every refusal a problem, never silence. Hostile clients come from other loopback
 * addresses (127.0.0.2 and up) than the genuine ones (127.0.0.1).
 */
final class AdmissionLimitsIT {
  static final HttpLimits SMALL = new HttpLimits(4, 2, 1024, Duration.ofSeconds(2), 4096, 4 + 64);

  @TempDir Path dir;
  SyncServer server;
  final List<Socket> open = new ArrayList<>();

  SyncServer start(HttpLimits limits) {
    server = SyncServer.start(ServerConfig.builder(dir).httpLimits(limits).build());
    return server;
  }

  @AfterEach
  void stop() throws IOException {
    for (Socket s : open) {
      s.close();
    }
    if (server != null) {
      server.close();
    }
  }

  /** A batch post from {@code from} that announces {@code length} bytes and sends one. */
  Socket slowBody(String from, int length) {
    try {
      Socket s = new Socket();
      open.add(s);
      s.bind(new InetSocketAddress(from, 0));
      URI base = server.baseUri();
      s.connect(new InetSocketAddress(base.getHost(), base.getPort()), 5_000);
      s.setSoTimeout(15_000);
      String head =
          "POST /v1/devices/slow/batches HTTP/1.1\r\nHost: 127.0.0.1:"
              + base.getPort()
              + "\r\nContent-Type: application/json\r\nContent-Length: "
              + length
              + "\r\n\r\n{";
      s.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
      return s;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The answer on {@code s}: status, head and body, or status -1 when it closed unanswered. */
  static RawHttp.Reply answer(Socket s) {
    try {
      InputStream in = s.getInputStream();
      ByteArrayOutputStream got = new ByteArrayOutputStream();
      byte[] buf = new byte[4096];
      int n;
      try {
        while ((n = in.read(buf)) > 0) {
          got.write(buf, 0, n);
          String text = got.toString(StandardCharsets.ISO_8859_1);
          int end = text.indexOf("\r\n\r\n");
          if (end > 0 && complete(text, end)) {
            break;
          }
        }
      } catch (SocketTimeoutException e) {
        return new RawHttp.Reply(-2, "", new byte[0]);
      } catch (IOException e) {
        // a reset after the answer was read is fine; without one it is "closed unanswered"
      }
      String text = got.toString(StandardCharsets.ISO_8859_1);
      int end = text.indexOf("\r\n\r\n");
      if (end < 0) {
        return new RawHttp.Reply(-1, text, new byte[0]);
      }
      byte[] body = text.substring(end + 4).getBytes(StandardCharsets.ISO_8859_1);
      return new RawHttp.Reply(
          Integer.parseInt(text.substring(9, 12)), text.substring(0, end), body);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static boolean complete(String text, int end) {
    RawHttp.Reply head = new RawHttp.Reply(0, text.substring(0, end), new byte[0]);
    String length = head.header("Content-Length");
    return length != null && text.length() - end - 4 >= Integer.parseInt(length);
  }

  /** Waits (bounded) until the listener reads {@code want} bodies at once. */
  void awaitBodies(IntPredicate want) {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    int last = -1;
    while (System.nanoTime() < deadline) {
      last = (int) metric("danmaku_http_bodies", "");
      if (want.test(last)) {
        return;
      }
      Thread.onSpinWait();
      Thread.yield();
    }
    throw new AssertionError("bodies being read: got " + last);
  }

  /** The value of the first series named {@code name} whose labels include {@code label}. */
  double metric(String name, String label) {
    String text = RawHttp.send(server.baseUri(), "GET", "/metrics", "").text();
    for (String line : text.split("\n")) {
      if ((line.startsWith(name + " ") || line.startsWith(name + "{")) && line.contains(label)) {
        return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    throw new AssertionError("no " + name + " with " + label + " in /metrics");
  }

  static void assertProblem(RawHttp.Reply r, int status, String code) {
    assertEquals(status, r.status(), r.head() + "\n" + r.text());
    assertTrue(r.header("Content-Type").startsWith(Problem.MEDIA_TYPE), r.head());
    try {
      JsonNode p = Api.JSON.readTree(r.body());
      assertEquals(code, p.path("code").asText(), r.text());
    } catch (IOException e) {
      throw new AssertionError("not JSON: " + r.text(), e);
    }
  }

  @Test
  void bodiesFromOneAddressBeyondItsLimitAre429AtOnce() {
    start(SMALL);
    slowBody("127.0.0.2", 100_000);
    slowBody("127.0.0.2", 100_000);
    awaitBodies(n -> n == 2);
    RawHttp.Reply third = answer(slowBody("127.0.0.2", 100_000));
    assertProblem(third, 429, "rate-limited");
    assertEquals("1", third.header("Retry-After"));
    slowBody("127.0.0.3", 100_000);
    awaitBodies(n -> n == 3);
    assertTrue(metric("danmaku_http_refused_total", "limit=\"bodies-per-address\"") >= 1);
  }

  @Test
  void bodiesBeyondTheInstanceLimitAre503WhileReadsAndHealthAreServed() {
    start(SMALL);
    slowBody("127.0.0.2", 100_000);
    slowBody("127.0.0.2", 100_000);
    slowBody("127.0.0.3", 100_000);
    slowBody("127.0.0.3", 100_000);
    awaitBodies(n -> n == 4);
    RawHttp.Reply fifth = answer(slowBody("127.0.0.4", 100_000));
    assertProblem(fifth, 503, "overloaded");
    assertTrue(fifth.header("Retry-After") != null, fifth.head());
    assertEquals(200, RawHttp.send(server.baseUri(), "GET", "/healthz", "").status());
    assertEquals(200, RawHttp.send(server.baseUri(), "GET", "/v1/rooms/r/messages", "").status());
    assertTrue(metric("danmaku_http_refused_total", "limit=\"bodies\"") >= 1);
  }

  @Test
  void aBodySlowerThanTheMinimumRateIsCutWith408() throws Exception {
    start(new HttpLimits(4, 2, 1024, Duration.ofSeconds(30), 4096, 68));
    Socket s = slowBody("127.0.0.2", 100_000);
    awaitBodies(n -> n == 1);
    // the client's own pace: one more byte a second later, far below 1 KiB/s
    Thread.sleep(1_000);
    s.getOutputStream().write('[');
    s.getOutputStream().flush();
    RawHttp.Reply r = answer(s);
    assertProblem(r, 408, "request-timeout");
    awaitBodies(n -> n == 0);
    assertTrue(metric("danmaku_http_refused_total", "limit=\"body-timeout\"") >= 1);
  }

  @Test
  void aBodyThatFallsSilentIsCutAtTheIdleTimeout() {
    start(SMALL);
    long t0 = System.nanoTime();
    RawHttp.Reply r = answer(slowBody("127.0.0.2", 100));
    long waited = System.nanoTime() - t0;
    assertTrue(r.status() == 408 || r.status() == -1, r.head());
    assertTrue(waited < Duration.ofSeconds(10).toNanos(), "waited " + waited / 1_000_000 + " ms");
    awaitBodies(n -> n == 0);
  }

  @Test
  void headersUpToTheLimitAreReadAndBeyondAre431() {
    start(SMALL);
    String ok = "X-Filler: " + "a".repeat(SMALL.maxHeaderBytes() - 200) + "\r\n";
    assertEquals(200, RawHttp.send(server.baseUri(), "GET", "/healthz", ok).status());
    String big = "X-Filler: " + "a".repeat(SMALL.maxHeaderBytes()) + "\r\n";
    RawHttp.Reply r = RawHttp.send(server.baseUri(), "GET", "/healthz", big);
    assertProblem(r, 431, "headers-too-large");
  }
}
