package dev.danmakuledger.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The chaos proxy's faults, against a loopback server that reads one request of a known length,
 * records what it received and answers.
 */
class FaultProxyTest {
  private static final byte[] REQUEST = "x".repeat(4000).getBytes(StandardCharsets.US_ASCII);
  private static final byte[] REPLY = "done".getBytes(StandardCharsets.US_ASCII);

  private ServerSocket target;
  private final BlockingQueue<Integer> received = new LinkedBlockingQueue<>();
  private Thread acceptor;

  @BeforeEach
  void startTarget() throws IOException {
    target = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
    acceptor =
        new Thread(
            () -> {
              while (!target.isClosed()) {
                try (Socket s = target.accept()) {
                  s.setSoTimeout(5_000);
                  InputStream in = s.getInputStream();
                  int n = 0;
                  byte[] buf = new byte[8192];
                  int r;
                  while (n < REQUEST.length && (r = in.read(buf)) >= 0) {
                    n += r;
                  }
                  received.add(n);
                  if (n == REQUEST.length) {
                    OutputStream out = s.getOutputStream();
                    out.write(REPLY);
                    out.flush();
                  }
                } catch (IOException e) {
                  // the proxy cut the connection
                }
              }
            });
    acceptor.setDaemon(true);
    acceptor.start();
  }

  @AfterEach
  void stopTarget() throws IOException {
    target.close();
  }

  private FaultProxy proxy(double drop, double lose) throws IOException {
    return new FaultProxy(
        new InetSocketAddress("127.0.0.1", target.getLocalPort()), drop, lose, 42);
  }

  /** Sends the request and reads until EOF or reset; returns what came back. */
  private static byte[] exchange(int port) throws IOException {
    try (Socket s = new Socket("127.0.0.1", port)) {
      s.setSoTimeout(5_000);
      s.getOutputStream().write(REQUEST);
      s.getOutputStream().flush();
      ByteArrayOutputStream got = new ByteArrayOutputStream();
      byte[] buf = new byte[1024];
      try {
        int r;
        while ((r = s.getInputStream().read(buf)) >= 0) {
          got.write(buf, 0, r);
        }
      } catch (SocketException reset) {
        // a cut connection may surface as a reset
      }
      return got.toByteArray();
    }
  }

  @Test
  void passesTrafficThroughWhenNoFaultIsDrawn() throws Exception {
    try (FaultProxy p = proxy(0, 0)) {
      assertEquals("done", new String(exchange(p.port()), StandardCharsets.US_ASCII));
      assertEquals(REQUEST.length, received.poll(5, TimeUnit.SECONDS));
      assertEquals(1L, p.injected().get(FaultProxy.Fault.PASS));
    }
  }

  @Test
  void droppedConnectionNeverDeliversAWholeRequestNorAReply() throws Exception {
    try (FaultProxy p = proxy(1, 0)) {
      assertEquals(0, exchange(p.port()).length);
      int n = received.poll(5, TimeUnit.SECONDS);
      assertTrue(
          n > 0 && n < REQUEST.length, "target got " + n + " bytes, want a truncated request");
      assertEquals(1L, p.injected().get(FaultProxy.Fault.DROP_CONNECTION));
    }
  }

  @Test
  void lostResponseDeliversTheRequestButNotTheReply() throws Exception {
    try (FaultProxy p = proxy(0, 1)) {
      assertEquals(0, exchange(p.port()).length);
      assertEquals(REQUEST.length, received.poll(5, TimeUnit.SECONDS));
      assertEquals(1L, p.injected().get(FaultProxy.Fault.LOSE_RESPONSE));
    }
  }

  @Test
  void ratesChangeForNewConnections() throws Exception {
    try (FaultProxy p = proxy(0, 1)) {
      assertEquals(0, exchange(p.port()).length);
      p.setRates(0, 0);
      assertEquals("done", new String(exchange(p.port()), StandardCharsets.US_ASCII));
      assertEquals(1L, p.injected().get(FaultProxy.Fault.LOSE_RESPONSE));
      assertEquals(1L, p.injected().get(FaultProxy.Fault.PASS));
    }
  }

  @Test
  void hedgedRequestReachesTwoTargetsAndTheClientGetsOneReply() throws Exception {
    ServerSocket second = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
    BlockingQueue<Integer> secondGot = new LinkedBlockingQueue<>();
    Thread t =
        new Thread(
            () -> {
              try (Socket s = second.accept()) {
                byte[] got = s.getInputStream().readNBytes(REQUEST.length);
                secondGot.add(got.length);
                s.getOutputStream().write(REPLY);
              } catch (IOException e) {
                secondGot.add(-1);
              }
            });
    t.setDaemon(true);
    t.start();
    try (FaultProxy p =
        new FaultProxy(
            List.of(
                new InetSocketAddress("127.0.0.1", target.getLocalPort()),
                new InetSocketAddress("127.0.0.1", second.getLocalPort())),
            0,
            0,
            42)) {
      p.setHedgeRate(1);
      assertEquals("done", new String(exchange(p.port()), StandardCharsets.US_ASCII));
      assertEquals(REQUEST.length, received.poll(5, TimeUnit.SECONDS));
      assertEquals(REQUEST.length, secondGot.poll(5, TimeUnit.SECONDS));
      assertEquals(1L, p.injected().get(FaultProxy.Fault.HEDGE));
    } finally {
      second.close();
    }
  }

  @Test
  void whatTheServerAnswersToADroppedRequestIsCountedNotDelivered() throws Exception {
    ServerSocket angry = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
    Thread t =
        new Thread(
            () -> {
              try (Socket s = angry.accept()) {
                s.getInputStream().readAllBytes(); // until the proxy ends the request stream
                s.getOutputStream()
                    .write(
                        "HTTP/1.1 500 Server Error\r\n\r\n{\"code\":\"internal\"}"
                            .getBytes(StandardCharsets.US_ASCII));
              } catch (IOException e) {
                // the test fails on the tally below
              }
            });
    t.setDaemon(true);
    t.start();
    try (FaultProxy p =
        new FaultProxy(new InetSocketAddress("127.0.0.1", angry.getLocalPort()), 1, 0, 7)) {
      assertEquals(0, exchange(p.port()).length);
      t.join(5_000);
      long deadline = System.nanoTime() + 5_000_000_000L;
      while (p.statuses().serverErrors().isEmpty() && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      assertEquals(java.util.Map.of("500 internal", 1L), p.statuses().serverErrors());
    } finally {
      angry.close();
    }
  }

  @Test
  void aPartitionHoldsNewConnectionsSilentUntilItEndsThenTrafficPassesAgain() throws Exception {
    try (FaultProxy p = proxy(0, 0)) {
      p.partition(true);
      try (Socket s = new Socket("127.0.0.1", p.port())) {
        s.setSoTimeout(500);
        s.getOutputStream().write(REQUEST);
        s.getOutputStream().flush();
        assertThrows(java.net.SocketTimeoutException.class, () -> s.getInputStream().read());
        assertEquals(null, received.poll(200, TimeUnit.MILLISECONDS), "nothing reached the target");
        p.partition(false);
        s.setSoTimeout(5_000);
        int r;
        try {
          r = s.getInputStream().read();
        } catch (SocketException reset) {
          r = -1;
        }
        assertEquals(-1, r, "the held connection is closed when the partition ends");
      }
      assertEquals("done", new String(exchange(p.port()), StandardCharsets.US_ASCII));
      assertEquals(REQUEST.length, received.poll(5, TimeUnit.SECONDS));
    }
  }

  @Test
  void hedgingNeedsTwoTargets() throws Exception {
    try (FaultProxy p = proxy(0, 0)) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> p.setHedgeRate(0.5));
      assertTrue(e.getMessage().contains("want 2 targets"), e.getMessage());
      p.setHedgeRate(0);
    }
  }

  @Test
  void newTargetTakesNewConnections() throws Exception {
    ServerSocket dead = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
    int deadPort = dead.getLocalPort();
    dead.close();
    try (FaultProxy p =
        new FaultProxy(List.of(new InetSocketAddress("127.0.0.1", deadPort)), 0, 0, 1)) {
      assertEquals(0, exchange(p.port()).length);
      p.setTargets(List.of(new InetSocketAddress("127.0.0.1", target.getLocalPort())));
      assertEquals("done", new String(exchange(p.port()), StandardCharsets.US_ASCII));
      assertThrows(IllegalArgumentException.class, () -> p.setTargets(List.of()));
    }
  }

  @Test
  void sameSeedDrawsTheSameFaults() throws Exception {
    StringBuilder first = new StringBuilder();
    StringBuilder second = new StringBuilder();
    for (StringBuilder out : new StringBuilder[] {first, second}) {
      try (FaultProxy p = proxy(0.3, 0.3)) {
        for (int i = 0; i < 12; i++) {
          out.append(exchange(p.port()).length > 0 ? 'P' : 'F');
        }
      }
    }
    assertEquals(first.toString(), second.toString());
    assertTrue(first.toString().contains("F") && first.toString().contains("P"), first.toString());
  }

  @Test
  void refusesImpossibleRatesAndNegativeDelays() throws Exception {
    IllegalArgumentException sum =
        assertThrows(IllegalArgumentException.class, () -> proxy(0.7, 0.5));
    assertTrue(sum.getMessage().contains("got drop 0.7, lose 0.5"), sum.getMessage());
    assertThrows(IllegalArgumentException.class, () -> proxy(-0.1, 0));
    assertThrows(IllegalArgumentException.class, () -> proxy(Double.NaN, 0));
    try (FaultProxy p = proxy(0, 0)) {
      assertThrows(IllegalArgumentException.class, () -> p.setDelayMillis(-1));
    }
  }
}
