package dev.danmakuledger.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A short {@code bin/bench chaos} run on the embedded H2 (child JVMs for the server and two agents,
 * an owned Redis primary and replica, the fault proxy): every fault kind that needs no MariaDB is
 * injected at least once and every exactly-once check holds; the MariaDB faults must be left out
 * explicitly, and a run that does not leave them out refuses to start.
 */
class ChaosHarnessIT {
  private static final Set<String> MARIADB_FAULTS =
      Set.of("mariadb-restart", "sql-connection-kill", "two-instances");

  @TempDir Path dir;

  @Test
  void shortRunUnderEveryFaultKeepsExactlyOnce() throws Exception {
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    String classpath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    ChaosHarness.Summary s =
        ChaosHarness.run(
            new ChaosHarness.Options(
                Duration.ofSeconds(30),
                2,
                3,
                15,
                3,
                null,
                false,
                0.03,
                0.03,
                MARIADB_FAULTS,
                Duration.ofSeconds(3)),
            new PrintStream(log, true, StandardCharsets.UTF_8),
            dir,
            classpath);
    String report = s + "\n" + log.toString(StandardCharsets.UTF_8);
    assertTrue(s.passed(), report);
    FaultKind.Setup h2 = new FaultKind.Setup(false, false, 1, false, false);
    for (FaultKind k : FaultKind.values()) {
      if (!k.random() && k.whyNot(h2) == null) {
        assertTrue(s.faults().get(k.label) >= 1, k + " never injected: " + report);
      }
    }
    assertTrue(
        s.totals().get("stored messages (server rooms, cloned devices included)") > 0, report);
    for (String name : MARIADB_FAULTS) {
      assertTrue(s.skipped().containsKey(ChaosHarness.kind(name).label), report);
    }
  }

  @Test
  void aFaultTheSetUpCannotInjectMustBeLeftOutExplicitly() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                new ChaosHarness.Options(
                    Duration.ofSeconds(30),
                    2,
                    3,
                    15,
                    3,
                    null,
                    false,
                    0.03,
                    0.03,
                    Set.of("mariadb-restart"),
                    Duration.ofSeconds(3)));
    assertTrue(e.getMessage().contains("--without sql-connection-kill"), e.getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () ->
            new ChaosHarness.Options(
                Duration.ofSeconds(30),
                2,
                3,
                15,
                3,
                null,
                true,
                0.03,
                0.03,
                Set.of("no-such-fault"),
                Duration.ofSeconds(3)));
  }
}
