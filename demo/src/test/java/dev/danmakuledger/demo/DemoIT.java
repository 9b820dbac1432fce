package dev.danmakuledger.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo's whole story, headless, in a temp directory (what {@code bin/demo --headless} runs):
 * every check passes, and the checks are exactly the documented set (docs/demo.md, "The checks"),
 * so a check that silently disappears fails this test too.
 */
class DemoIT {
  /** The checks of docs/demo.md's run, in report order. */
  private static final List<String> EXPECTED =
      List.of(
          "double clicks get the original ack",
          "repeats acknowledged as repeats",
          "kiosk-a: every record has an outcome and a receipt",
          "kiosk-b: every record has an outcome and a receipt",
          "kiosk-c: every record has an outcome and a receipt",
          "captured on the agents = entries given to them",
          "agent acknowledgements match server rows",
          "legacy box: new messages confirmed, banned one rejected",
          "Redis: repeats answered DUPLICATE with the original seq and id",
          "same key, other text answered CONFLICT (never stored)",
          "SQL guard: repeats after the Redis wipe answered DUPLICATE with the original seq",
          "per-room numbering is 1..high with no gap",
          "every key stored exactly once",
          "server holds exactly what was captured",
          "numbers burned by SQL-caught repeats are tombstones",
          "kiosk-a: server-verified root = device root",
          "kiosk-b: server-verified root = device root",
          "kiosk-c: server-verified root = device root",
          "legacy-box: server-verified root = device root",
          "edge caught every injected repeat (Bloom + exact)",
          "server shows the edge-reported repeats",
          "server shows repeats caught by Redis",
          "server shows repeats caught by the SQL guard",
          "server conflicts = injected",
          "no fork among honest devices",
          "retries after sync get the original ack with the server seq",
          "cloned device refused as a fork and quarantined");

  @TempDir Path work;

  @Test
  void everyCheckOfTheStoryPasses() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    Checks checks;
    try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        DemoScenario demo = new DemoScenario(work, out, Clock.systemUTC(), Duration.ZERO)) {
      checks = demo.run();
    }
    String report = bytes.toString(StandardCharsets.UTF_8);
    String failed =
        checks.all().stream()
            .filter(c -> !c.passed())
            .map(c -> c.name() + ": " + c.detail())
            .collect(Collectors.joining("\n"));
    assertEquals(0, checks.failures(), "failed checks:\n" + failed + "\n\nreport:\n" + report);
    assertEquals(27, checks.all().size(), report);
    assertEquals(EXPECTED, checks.all().stream().map(Checks.Check::name).toList());
    assertTrue(report.contains("\n27 checks, 0 failed, in "), report);
    assertEquals(
        27, report.lines().filter(l -> l.startsWith("[PASS] ")).count(), "PASS lines:\n" + report);
  }
}
