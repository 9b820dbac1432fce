package dev.danmakuledger.edge.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.edge.testing.TestDevice;
import dev.danmakuledger.protocol.testing.MutableClock;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Local clients that stall mid-request (docs/edge-agent.md, "Local ingest API"): 200 connections
 * that send half a request head and then nothing neither stop captures from other local clients nor
 * stay open past the request deadline; past every worker thread and queue slot a new client is
 * closed unanswered until the deadline frees them. Bounded: at most 320 connections, each held at
 * most until the server closes it.
 */
class SlowLocalClientsIT {
  static final int SLOW = 200;

  @TempDir Path dir;
  private TestDevice device;
  private IngestServer server;
  private int port;
  private final List<Socket> slow = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    device = TestDevice.create(dir, new MutableClock(Instant.parse("2026-04-01T00:00:00Z")));
    server =
        IngestServer.start(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            device.capture,
            device.store,
            TestDevice.UNBOUNDED);
    port = server.address().getPort();
  }

  @AfterEach
  void stop() throws Exception {
    for (Socket s : slow) {
      s.close();
    }
    server.close();
    device.close();
  }

  private Socket stalled() throws IOException {
    Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
    s.setSoTimeout((IngestServer.REQUEST_DEADLINE_SECONDS + 10) * 1000);
    s.getOutputStream()
        .write(
            ("POST /v1/danmaku HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nContent-Ty")
                .getBytes(StandardCharsets.US_ASCII));
    s.getOutputStream().flush();
    return s;
  }

  private int capture(int i) throws IOException {
    String key = "dev-1:alice:1700000000000:" + String.format("%024x", i);
    String body =
        "{\"idempotencyKey\":\""
            + key
            + "\",\"room\":\"room-1\",\"user\":\"alice\",\"text\":\"hi\"}";
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      out.write(
          ("POST /v1/danmaku HTTP/1.1\r\nHost: 127.0.0.1:"
                  + port
                  + "\r\nContent-Type: application/json\r\nContent-Length: "
                  + bytes.length
                  + "\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.write(bytes);
      out.flush();
      ByteArrayOutputStream got = new ByteArrayOutputStream();
      s.getInputStream().transferTo(got);
      String text = got.toString(StandardCharsets.UTF_8);
      return Integer.parseInt(text.substring(9, 12));
    }
  }

  @Test
  void stalledLocalClientsNeitherStopCapturesNorOutliveTheDeadline() throws Exception {
    long[] quiet = new long[20];
    for (int i = 0; i < quiet.length; i++) {
      long t0 = System.nanoTime();
      assertEquals(201, capture(i));
      quiet[i] = System.nanoTime() - t0;
    }
    for (int i = 0; i < SLOW; i++) {
      slow.add(stalled());
    }
    long[] held = new long[20];
    for (int i = 0; i < held.length; i++) {
      long t0 = System.nanoTime();
      assertEquals(201, capture(100 + i));
      held[i] = System.nanoTime() - t0;
    }
    System.out.printf(
        "edge local API, %d stalled clients: capture p50/p99 ms quiet %.1f/%.1f, stalled %.1f/%.1f%n",
        SLOW, ms(quiet, 50), ms(quiet, 99), ms(held, 50), ms(held, 99));
    long t0 = System.nanoTime();
    for (Socket s : slow) {
      InputStream in = s.getInputStream();
      int got;
      try {
        got = in.read();
      } catch (IOException reset) {
        got = -1;
      }
      assertEquals(-1, got, "a stalled connection is closed, not answered");
    }
    long closedAfter = (System.nanoTime() - t0) / 1_000_000;
    assertTrue(
        closedAfter < (IngestServer.REQUEST_DEADLINE_SECONDS + 5) * 1000L,
        "stalled connections closed after " + closedAfter + " ms");
    assertEquals(40, device.store.recordCount());
  }

  @Test
  void pastEveryThreadAndQueueSlotANewClientIsClosedAndServedOnceTheDeadlineFreesThem()
      throws Exception {
    int capacity = IngestServer.MAX_THREADS + IngestServer.MAX_QUEUED;
    for (int i = 0; i < capacity; i++) {
      slow.add(stalled());
    }
    // every thread holds a stalled client and the queue is full: one more is closed at once
    long t0 = System.nanoTime();
    int answer = answerTo(1);
    long refusedAfter = (System.nanoTime() - t0) / 1_000_000;
    assertEquals(-1, answer, "closed unanswered past " + capacity + " connections");
    assertTrue(refusedAfter < 2_000, "closed after " + refusedAfter + " ms, not left waiting");
    long freed =
        System.nanoTime() + (3L * IngestServer.REQUEST_DEADLINE_SECONDS + 5) * 1_000_000_000L;
    do {
      Thread.sleep(200);
      answer = answerTo(2);
    } while (answer != 201 && System.nanoTime() < freed);
    assertEquals(201, answer, "served once the request deadline closed the stalled clients");
    assertEquals(201, capture(3), "and the server accepts connections as before");
  }

  /** The status of a capture, or -1 when the connection was closed or reset unanswered. */
  private int answerTo(int i) {
    try {
      return capture(i);
    } catch (IOException | RuntimeException closed) {
      return -1;
    }
  }

  static double ms(long[] nanos, int percentile) {
    long[] sorted = nanos.clone();
    Arrays.sort(sorted);
    int i = (int) Math.ceil(percentile / 100.0 * sorted.length) - 1;
    return sorted[Math.max(0, i)] / 1e6;
  }
}
