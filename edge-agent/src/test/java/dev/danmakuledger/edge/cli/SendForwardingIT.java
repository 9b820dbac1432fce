package dev.danmakuledger.edge.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.edge.EdgeAgent;
import dev.danmakuledger.edge.api.IngestServer;
import dev.danmakuledger.protocol.testing.MutableClock;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code send} while an agent owns the directory goes through that agent's local API. */
class SendForwardingIT {
  @TempDir Path dataDir;
  private final MutableClock clock = new MutableClock(Instant.parse("2026-06-01T08:00:00Z"));
  private String out;
  private String err;

  private int run(String... args) {
    StringWriter o = new StringWriter();
    StringWriter e = new StringWriter();
    int code = EdgeAgentMain.execute(new PrintWriter(o), new PrintWriter(e), clock, args);
    out = o.toString();
    err = e.toString();
    return code;
  }

  @Test
  void sendGoesThroughTheRunningAgentsApi() throws Exception {
    assertEquals(0, run("init", "--data-dir", dataDir.toString(), "--device-id", "kiosk-7"), err);
    String key = "kiosk-7:bob:1780300800000:0123456789abcdef";
    String[] send = {
      "send", "-d", dataDir.toString(), "--room", "r1", "--user", "bob", "--key", key
    };
    try (EdgeAgent agent = EdgeAgent.open(dataDir, clock);
        IngestServer server =
            IngestServer.start(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                agent.capture(),
                agent.store(),
                agent.config().maxStoreBytes())) {
      agent.advertise(server.hostPort());
      assertEquals(0, run(with(send, "hi")), err);
      assertTrue(out.startsWith("captured index=0 key=" + key), out);
      assertEquals(1, agent.capture().logStatus().size());
      assertEquals(0, run(with(send, "hi")));
      assertTrue(out.startsWith("repeat (original ack) index=0"), out);
      assertEquals(1, run(with(send, "other")));
      assertTrue(err.contains("answered 422"), err);
    }
  }

  private static String[] with(String[] args, String text) {
    String[] all = java.util.Arrays.copyOf(args, args.length + 1);
    all[args.length] = text;
    return all;
  }
}
