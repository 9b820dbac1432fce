package dev.danmakuledger.edge.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code --window} of {@code sync} and {@code run}: 1..16 batches in flight, 4 by default; {@code
 * --no-compress} turns gzip off (docs/sync.md, "Batches in flight", "Compressed batches").
 */
class WindowOptionTest {
  @TempDir Path dir;

  private static SyncCommand.Options parse(String... args) {
    SyncCommand.Options o = new SyncCommand.Options();
    new CommandLine(o).parseArgs(args);
    return o;
  }

  @Test
  void fourBatchesInFlightAndGzipByDefault() {
    SyncCommand.Options o = parse();
    assertEquals(4, o.settings(SyncCommand.SYNC_LINGER).window());
    assertTrue(o.compress);
  }

  @Test
  void oneAndSixteenAreTheBounds() {
    assertEquals(1, parse("--window", "1").settings(SyncCommand.SYNC_LINGER).window());
    assertEquals(16, parse("--window", "16").settings(SyncCommand.RUN_LINGER).window());
  }

  @Test
  void zeroAndSeventeenAreRefused() {
    IllegalArgumentException zero =
        assertThrows(
            IllegalArgumentException.class,
            () -> parse("--window", "0").settings(SyncCommand.SYNC_LINGER));
    assertEquals("window: got 0, want 1..16 batches in flight", zero.getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () -> parse("--window", "17").settings(SyncCommand.SYNC_LINGER));
  }

  @Test
  void aWindowOutOfBoundsIsAUsageErrorOfSyncAndRun() {
    for (String command : new String[] {"sync", "run"}) {
      for (String n : new String[] {"0", "17"}) {
        StringWriter err = new StringWriter();
        int code =
            EdgeAgentMain.execute(
                new PrintWriter(new StringWriter()),
                new PrintWriter(err),
                Clock.systemUTC(),
                command,
                "--data-dir",
                dir.toString(),
                "--window",
                n);
        assertEquals(ExitCodes.USAGE, code, command + " --window " + n + ": " + err);
        assertTrue(err.toString().contains("want 1..16"), err.toString());
      }
    }
  }

  @Test
  void noCompressTurnsGzipOff() {
    assertFalse(parse("--no-compress").compress);
  }

  @Test
  void helpNamesTheWindowAndTheCompression() {
    String help = new CommandLine(new SyncCommand()).getUsageMessage().replaceAll("\\s+", " ");
    assertTrue(help.contains("--window=N"), help);
    assertTrue(help.contains("--[no-]compress"), help);
  }
}
