package dev.danmakuledger.bench.ingest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PlainHttpTest {
  private ServerSocket server;
  private final AtomicInteger connections = new AtomicInteger();
  private final List<String> requests = new ArrayList<>();

  /** A server answering each request on a connection with the next of {@code replies}. */
  private URI serve(boolean closeAfterFirst, String... replies) throws IOException {
    server = new ServerSocket(0);
    Thread t =
        new Thread(
            () -> {
              int next = 0;
              while (!server.isClosed() && next < replies.length) {
                try (Socket s = server.accept()) {
                  connections.incrementAndGet();
                  InputStream in = s.getInputStream();
                  OutputStream out = s.getOutputStream();
                  while (next < replies.length) {
                    String request = readRequest(in);
                    if (request == null) {
                      break;
                    }
                    synchronized (requests) {
                      requests.add(request);
                    }
                    out.write(replies[next++].getBytes(StandardCharsets.ISO_8859_1));
                    out.flush();
                    if (closeAfterFirst) {
                      break;
                    }
                  }
                } catch (IOException e) {
                  return;
                }
              }
            });
    t.setDaemon(true);
    t.start();
    return URI.create("http://127.0.0.1:" + server.getLocalPort());
  }

  /** Reads one request with a Content-Length body; null at the end of the connection. */
  static String readRequest(InputStream in) throws IOException {
    StringBuilder head = new StringBuilder();
    while (!head.toString().endsWith("\r\n\r\n")) {
      int c = in.read();
      if (c < 0) {
        return null;
      }
      head.append((char) c);
    }
    int at = head.indexOf("Content-Length: ") + "Content-Length: ".length();
    int length = Integer.parseInt(head.substring(at, head.indexOf("\r\n", at)));
    return head + new String(in.readNBytes(length), StandardCharsets.ISO_8859_1);
  }

  @AfterEach
  void stop() throws IOException {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void aReplyWithAContentLengthIsReadAndTheConnectionKeptForTheNext() throws IOException {
    URI base =
        serve(
            false,
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
            "HTTP/1.1 409 Conflict\r\nContent-Length: 3\r\n\r\nabc");
    try (PlainHttp http = new PlainHttp(base, Duration.ofSeconds(5))) {
      PlainHttp.Response first = http.post("/v1/x", "application/json", "[1]".getBytes());
      PlainHttp.Response second = http.post("/v1/y", "application/json", "[22]".getBytes());

      assertEquals(200, first.status());
      assertEquals("application/json", first.contentType());
      assertEquals("{}", new String(first.body(), StandardCharsets.UTF_8));
      assertEquals(409, second.status());
      assertEquals("", second.contentType());
      assertEquals("abc", new String(second.body(), StandardCharsets.UTF_8));
    }
    assertEquals(1, connections.get());
    String request = requests.get(0);
    assertTrue(request.startsWith("POST /v1/x HTTP/1.1\r\n"), request);
    assertTrue(request.contains("Content-Length: 3\r\n"), request);
    assertTrue(request.endsWith("\r\n\r\n[1]"), request);
  }

  @Test
  void aRequestIsWrittenAloneAndItsReplyReadLaterOneAtATime() throws IOException {
    URI base =
        serve(
            false,
            "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\na",
            "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nb");
    try (PlainHttp http = new PlainHttp(base, Duration.ofSeconds(5))) {
      assertThrows(IllegalStateException.class, http::receive);
      http.send("/", "text/plain", "1".getBytes(), "A: 1", "B: two");
      assertThrows(IllegalStateException.class, () -> http.send("/", "text/plain", "2".getBytes()));

      assertArrayEquals("a".getBytes(), http.receive().body());
      assertThrows(IllegalStateException.class, http::receive);
      assertArrayEquals("b".getBytes(), http.post("/", "text/plain", "3".getBytes()).body());
    }
    assertEquals(1, connections.get());
    assertEquals(2, requests.size());
    assertTrue(
        requests.get(0).endsWith("Content-Length: 1\r\nA: 1\r\nB: two\r\n\r\n1"), requests.get(0));
    assertTrue(requests.get(1).endsWith("Content-Length: 1\r\n\r\n3"), requests.get(1));
  }

  @Test
  void aChunkedReplyIsJoinedWithItsExtensionsAndTrailersDropped() throws IOException {
    URI base =
        serve(
            false,
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "3;ext=1\r\nabc\r\nA\r\n0123456789\r\n0\r\nX-Trailer: t\r\n\r\n");
    try (PlainHttp http = new PlainHttp(base, Duration.ofSeconds(5))) {
      PlainHttp.Response r = http.post("/", "text/plain", new byte[0]);

      assertEquals("abc0123456789", new String(r.body(), StandardCharsets.UTF_8));
    }
  }

  @Test
  void aConnectionTheServerClosedWhileIdleIsOpenedAgainAndTheRequestSentOnce() throws IOException {
    URI base =
        serve(
            true,
            "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\na",
            "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nb");
    try (PlainHttp http = new PlainHttp(base, Duration.ofSeconds(5))) {
      assertArrayEquals("a".getBytes(), http.post("/", "text/plain", new byte[0]).body());
      assertArrayEquals("b".getBytes(), http.post("/", "text/plain", new byte[0]).body());
    }
    assertEquals(2, connections.get());
    assertEquals(2, requests.size());
  }

  @Test
  void aReplyWithConnectionCloseClosesItsConnection() throws IOException {
    URI base =
        serve(
            false,
            "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 1\r\n\r\na",
            "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nb");
    try (PlainHttp http = new PlainHttp(base, Duration.ofSeconds(5))) {
      assertArrayEquals("a".getBytes(), http.post("/", "text/plain", new byte[0]).body());
      assertArrayEquals("b".getBytes(), http.post("/", "text/plain", new byte[0]).body());
    }
    // the server kept its end open: the second request went on a connection of its own
    assertEquals(2, connections.get());
  }

  @Test
  void malformedAndOversizedRepliesFailTheExchange() throws IOException {
    URI base =
        serve(
            true,
            "SPDY/3 200 OK\r\n\r\n",
            "HTTP/1.1 2x0 OK\r\n\r\n",
            "HTTP/1.1 200 OK\r\nContent-Length: " + (PlainHttp.MAX_BODY + 1) + "\r\n\r\n",
            "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort",
            "HTTP/1.1 200 OK\r\nno colon here\r\n\r\n",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n");
    try (PlainHttp http = new PlainHttp(base, Duration.ofSeconds(5))) {
      for (String why :
          List.of(
              "not an HTTP/1.x status line",
              "not an HTTP/1.x status line",
              "Content-Length",
              "ended after 5 of 10",
              "not a header line",
              "chunk size")) {
        IOException e =
            assertThrows(IOException.class, () -> http.post("/", "text/plain", new byte[0]));
        assertTrue(e.getMessage().contains(why), e.getMessage());
      }
    }
  }

  @Test
  void onlyPlainHttpWithAPortIsTaken() {
    assertThrows(
        IllegalArgumentException.class,
        () -> new PlainHttp(URI.create("https://h:1"), Duration.ofSeconds(1)));
    assertThrows(
        IllegalArgumentException.class,
        () -> new PlainHttp(URI.create("http://h"), Duration.ofSeconds(1)));
  }
}
