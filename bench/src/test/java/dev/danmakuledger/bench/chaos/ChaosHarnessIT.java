package dev.danmakuledger.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A short {@code bin/bench chaos} run (child JVMs for the server and two agents, an owned
 * redis-server, the fault proxy): every fault kind is injected at least once and every exactly-once
 * check holds.
 */
class ChaosHarnessIT {
  @TempDir Path dir;

  @Test
  void shortRunUnderEveryFaultKeepsExactlyOnce() throws Exception {
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    String classpath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    ChaosHarness.Summary s =
        ChaosHarness.run(
            new ChaosHarness.Options(Duration.ofSeconds(45), 2, 3, 15, 3, null, false, 0.03, 0.03),
            new PrintStream(log, true, StandardCharsets.UTF_8),
            dir,
            classpath);
    String report = s + "\n" + log.toString(StandardCharsets.UTF_8);
    assertTrue(s.passed(), report);
    for (FaultKind k : FaultKind.values()) {
      if (k != FaultKind.PROXY_DROPPED_CONNECTION
          && k != FaultKind.PROXY_LOST_RESPONSE
          && k != FaultKind.MARIADB_RESTART) {
        assertTrue(s.faults().get(k.label) >= 1, k + " never injected: " + report);
      }
    }
    assertTrue(s.totals().get("stored messages (server rooms)") > 0, report);
    assertTrue(s.skipped().containsKey(FaultKind.MARIADB_RESTART.label), report);
  }
}
