package dev.danmakuledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.protocol.error.Problem;
import dev.danmakuledger.server.events.StreamLimits;
import dev.danmakuledger.server.http.HttpLimits;
import dev.danmakuledger.testkit.TestDevice;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A thousand slow-body connections (each announcing 100,000 bytes and sending one byte a second)
 * and five thousand idle room streams from one address against a live server with the default
 * limits, apart from a shorter idle timeout: every one of them gets an answer (the bodies 429, 503
 * or 408; the streams a stream up to the address's limit and 429 beyond it, never silence), while
 * {@code /healthz} and a genuine device's batches from another address keep being served. The
 * latencies of both, quiet and under the flood, are printed for docs/benchmarks.md, "Hostile
 * clients"; the load is bounded in count (6,000 connections) and time (each body at most 12 bytes).
 */
final class SlowBodyFloodIT {
  static final int HOSTILE = 1_000;
  static final int STREAMS = 5_000;
  static final int PROBES = 200;
  static final int BATCHES = 40;

  @TempDir Path dir;

  @Test
  void slowBodiesAndIdleStreamsFromOneAddressAreAnsweredAndLeaveHealthAndBatchesServed()
      throws Exception {
    HttpLimits limits =
        new HttpLimits(
            HttpLimits.DEFAULTS.maxBodies(),
            HttpLimits.DEFAULTS.maxBodiesPerAddress(),
            HttpLimits.DEFAULTS.minBodyBytesPerSecond(),
            // above the 15 s stream heartbeat, so that the admitted idle streams stay open
            Duration.ofSeconds(20),
            HttpLimits.DEFAULTS.maxHeaderBytes(),
            HttpLimits.DEFAULTS.maxThreads());
    try (SyncServer server =
        SyncServer.start(ServerConfig.builder(dir).httpLimits(limits).build())) {
      Api api = new Api(server.baseUri(), server.adminToken());
      TestDevice device = api.enrollNew(server.enrollToken());
      long[] quietHealth = probeHealth(server.baseUri());
      long[] quietBatch = batches(api, device, "quiet");

      ExecutorService readers = Executors.newFixedThreadPool(16);
      List<Socket> sockets = new ArrayList<>();
      List<Socket> streams = new ArrayList<>();
      List<Future<Integer>> answers = new ArrayList<>();
      long[] floodHealth;
      long[] floodBatch;
      try {
        for (int i = 0; i < HOSTILE; i++) {
          Socket s = slowBody(server.baseUri());
          sockets.add(s);
        }
        Thread dribbler = new Thread(() -> dribble(sockets));
        dribbler.setDaemon(true);
        dribbler.start();
        Map<Integer, Integer> streamsByStatus = new TreeMap<>();
        for (int i = 0; i < STREAMS; i++) {
          Socket s = idleStream(server.baseUri(), "idle-" + i);
          streams.add(s);
          streamsByStatus.merge(streamHead(s), 1, Integer::sum);
        }
        floodHealth = probeHealth(server.baseUri());
        floodBatch = batches(api, device, "flood");
        for (Socket s : sockets) {
          answers.add(readers.submit(() -> AdmissionLimitsIT.answer(s).status()));
        }
        Map<Integer, Integer> byStatus = new TreeMap<>();
        for (Future<Integer> f : answers) {
          byStatus.merge(f.get(), 1, Integer::sum);
        }
        dribbler.interrupt();
        System.out.printf(
            "slow-body flood: %d connections from 127.0.0.2 answered %s;"
                + " %d idle streams answered %s%n"
                + "  /healthz p50/p99 ms quiet %.1f/%.1f, flood %.1f/%.1f%n"
                + "  batch    p50/p99 ms quiet %.1f/%.1f, flood %.1f/%.1f%n",
            HOSTILE,
            byStatus,
            STREAMS,
            streamsByStatus,
            ms(quietHealth, 50),
            ms(quietHealth, 99),
            ms(floodHealth, 50),
            ms(floodHealth, 99),
            ms(quietBatch, 50),
            ms(quietBatch, 99),
            ms(floodBatch, 50),
            ms(floodBatch, 99));
        int answered = 0;
        for (Map.Entry<Integer, Integer> e : byStatus.entrySet()) {
          assertTrue(
              e.getKey() == 429 || e.getKey() == 503 || e.getKey() == 408,
              "every slow body gets 429, 503 or 408: " + byStatus);
          answered += e.getValue();
        }
        assertEquals(HOSTILE, answered, byStatus.toString());
        assertEquals(
            Map.of(200, StreamLimits.PER_ADDRESS, 429, STREAMS - StreamLimits.PER_ADDRESS),
            streamsByStatus,
            "streams up to the address's limit, 429 beyond it, none unanswered");
      } finally {
        readers.shutdownNow();
        for (Socket s : sockets) {
          s.close();
        }
        for (Socket s : streams) {
          s.close();
        }
      }
    }
  }

  /** A batch post from 127.0.0.2 that announces 100,000 bytes and sends one. */
  static Socket slowBody(URI base) {
    // beyond the dribble's 12 s and the idle timeout, so that silence shows as a timeout
    return hostile(
        base,
        "POST /v1/devices/slow/batches HTTP/1.1\r\nHost: 127.0.0.1:"
            + base.getPort()
            + "\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{",
        40_000);
  }

  /** A room stream opened from 127.0.0.2 and then left idle. */
  static Socket idleStream(URI base, String room) {
    return hostile(
        base,
        "GET /v1/rooms/"
            + room
            + "/stream HTTP/1.1\r\nHost: 127.0.0.1:"
            + base.getPort()
            + "\r\nAccept: text/event-stream\r\n\r\n",
        20_000);
  }

  /** A connection from 127.0.0.2 that has sent {@code head} and waits {@code readTimeoutMs}. */
  private static Socket hostile(URI base, String head, int readTimeoutMs) {
    try {
      Socket s = new Socket();
      s.bind(new InetSocketAddress("127.0.0.2", 0));
      s.connect(new InetSocketAddress(base.getHost(), base.getPort()), 5_000);
      s.setSoTimeout(readTimeoutMs);
      s.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
      return s;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The status of the answer on {@code s}, read up to the end of its head: a stream's head comes at
   * once and its events later; a refusal must say when to come back and why. -1 when the server
   * closed without an answer.
   */
  static int streamHead(Socket s) {
    try {
      InputStream in = s.getInputStream();
      ByteArrayOutputStream got = new ByteArrayOutputStream();
      int tail = 0;
      while (tail != 0x0d0a0d0a) {
        int b = in.read();
        if (b < 0) {
          return -1;
        }
        got.write(b);
        tail = (tail << 8) | b;
      }
      String text = got.toString(StandardCharsets.ISO_8859_1);
      RawHttp.Reply head = new RawHttp.Reply(Integer.parseInt(text.substring(9, 12)), text, null);
      if (head.status() == 429) {
        assertTrue(head.header("Retry-After") != null, text);
        assertTrue(head.header("Content-Type").startsWith(Problem.MEDIA_TYPE), text);
      } else if (head.status() == 200) {
        assertTrue(head.header("Content-Type").startsWith("text/event-stream"), text);
      }
      return head.status();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** One more byte a second on every connection still open, at most 12 rounds. */
  static void dribble(List<Socket> sockets) {
    for (int round = 0; round < 12 && !Thread.currentThread().isInterrupted(); round++) {
      try {
        // the hostile client's own pace, one byte a second
        Thread.sleep(1_000);
      } catch (InterruptedException e) {
        return;
      }
      for (Socket s : sockets) {
        try {
          OutputStream out = s.getOutputStream();
          out.write(' ');
          out.flush();
        } catch (IOException closed) {
          // the server answered and closed it: nothing more to send
        }
      }
    }
  }

  static long[] probeHealth(URI base) {
    long[] nanos = new long[PROBES];
    for (int i = 0; i < PROBES; i++) {
      long t0 = System.nanoTime();
      RawHttp.Reply r = RawHttp.send(base, "GET", "/healthz", "");
      nanos[i] = System.nanoTime() - t0;
      assertEquals(200, r.status(), r.toString());
    }
    return nanos;
  }

  static long[] batches(Api api, TestDevice d, String room) {
    long[] nanos = new long[BATCHES];
    for (int i = 0; i < BATCHES; i++) {
      long t0 = System.nanoTime();
      api.sync(d, d.batch(d.record(room, "u", "m" + i)));
      nanos[i] = System.nanoTime() - t0;
    }
    return nanos;
  }

  static double ms(long[] nanos, int percentile) {
    long[] sorted = nanos.clone();
    Arrays.sort(sorted);
    int i = (int) Math.ceil(percentile / 100.0 * sorted.length) - 1;
    return sorted[Math.max(0, i)] / 1e6;
  }
}
