package dev.danmakuledger.bench.link;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The shaped link against an echo server over loopback: bytes intact, rate, delay, drops. */
class LinkProxyTest {
  ServerSocket echo;

  @BeforeEach
  void startEcho() throws IOException {
    echo = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
    Thread t =
        new Thread(
            () -> {
              while (true) {
                try {
                  Socket s = echo.accept();
                  Thread c =
                      new Thread(
                          () -> {
                            try (s) {
                              s.getInputStream().transferTo(s.getOutputStream());
                            } catch (IOException e) {
                              // the test closed it
                            }
                          });
                  c.setDaemon(true);
                  c.start();
                } catch (IOException e) {
                  return;
                }
              }
            });
    t.setDaemon(true);
    t.start();
  }

  @AfterEach
  void stopEcho() throws IOException {
    echo.close();
  }

  InetSocketAddress target() {
    return new InetSocketAddress(InetAddress.getLoopbackAddress(), echo.getLocalPort());
  }

  /** Sends {@code data} through the link and reads the echo; returns the seconds it took. */
  static double roundTrip(LinkProxy proxy, byte[] data) throws IOException {
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
      long start = System.nanoTime();
      OutputStream out = s.getOutputStream();
      Thread writer =
          new Thread(
              () -> {
                try {
                  out.write(data);
                  out.flush();
                } catch (IOException e) {
                  // the read below fails too
                }
              });
      writer.start();
      byte[] back = s.getInputStream().readNBytes(data.length);
      double seconds = (System.nanoTime() - start) / 1e9;
      assertArrayEquals(data, back);
      return seconds;
    }
  }

  static byte[] random(int n) {
    byte[] b = new byte[n];
    new Random(1).nextBytes(b);
    return b;
  }

  @Test
  void unlimitedLinkPassesEveryByte() throws IOException {
    try (LinkProxy proxy = new LinkProxy(target(), LinkProfile.LOOPBACK, 1)) {
      roundTrip(proxy, random(1_000_000));
      assertEquals(1_000_000, proxy.bytesUp());
      assertEquals(1_000_000, proxy.bytesDown());
      assertEquals(1, proxy.connections());
    }
  }

  @Test
  void roundTripTimeIsAddedOnConnectAndEachWay() throws IOException {
    LinkProfile slow = new LinkProfile("slow", 0, 0, Duration.ofMillis(200), null);
    try (LinkProxy proxy = new LinkProxy(target(), slow, 1)) {
      double seconds = roundTrip(proxy, new byte[] {42});
      // one round trip to connect, one for the byte and its echo
      assertTrue(seconds >= 0.4 && seconds < 1.5, "took " + seconds + " s, want about 0.4");
    }
  }

  @Test
  void rateLimitsEachDirection() throws IOException {
    // 800 kbit/s up and down: 50,000 bytes take 0.5 s to leave, the echo flows back alongside
    LinkProfile narrow = new LinkProfile("narrow", 800_000, 800_000, Duration.ZERO, null);
    try (LinkProxy proxy = new LinkProxy(target(), narrow, 1)) {
      double seconds = roundTrip(proxy, random(50_000));
      assertTrue(seconds >= 0.5 && seconds < 2, "took " + seconds + " s, want about 0.5");
    }
  }

  @Test
  void usageCountsThePausesBetweenBusySpells() throws Exception {
    // 800 kbit/s: 10,000 bytes keep the uplink busy 0.1 s; then it stands idle 0.3 s
    LinkProfile narrow = new LinkProfile("narrow", 800_000, 0, Duration.ZERO, null);
    try (LinkProxy proxy = new LinkProxy(target(), narrow, 1)) {
      assertEquals(0, proxy.upUsage().spanNanos(), "nothing sent yet");
      roundTrip(proxy, random(10_000));
      Thread.sleep(300);
      roundTrip(proxy, random(10_000));
      LinkProxy.Usage up = proxy.upUsage();
      assertEquals(1, up.pauses(), up.toString());
      assertTrue(up.idleNanos() >= 250_000_000L, up.toString());
      assertTrue(up.longestPauseNanos() <= up.idleNanos(), up.toString());
      assertTrue(up.spanNanos() >= 450_000_000L, up.toString());
      assertTrue(up.busy() > 0.2 && up.busy() < 0.5, "busy " + up.busy());
    }
  }

  @Test
  void aDropResetsOpenConnections() throws IOException {
    LinkProfile flaky = new LinkProfile("flaky", 0, 0, Duration.ZERO, Duration.ofMillis(50));
    try (LinkProxy proxy = new LinkProxy(target(), flaky, 1);
        Socket s = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
      s.setSoTimeout(10_000);
      InputStream in = s.getInputStream();
      // echo until the link drops (a drop every 50 ms on average), not a fixed number of bytes:
      // a fast machine echoes a thousand bytes before the first drop
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      assertThrows(
          IOException.class,
          () -> {
            while (System.nanoTime() < deadline) {
              s.getOutputStream().write(1);
              if (in.read() < 0) {
                throw new IOException("closed");
              }
            }
          });
      assertTrue(proxy.drops() >= 1);
    }
  }

  @Test
  void profilesByName() {
    assertEquals(LinkProfile.FOUR_G, LinkProfile.named("4g"));
    assertThrows(IllegalArgumentException.class, () -> LinkProfile.named("5g"));
    assertThrows(
        IllegalArgumentException.class, () -> new LinkProfile("x", -1, 0, Duration.ZERO, null));
    assertThrows(
        IllegalArgumentException.class,
        () -> new LinkProfile("x", 0, 0, Duration.ZERO, Duration.ZERO));
  }
}
