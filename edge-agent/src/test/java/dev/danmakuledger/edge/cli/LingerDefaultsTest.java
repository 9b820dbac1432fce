package dev.danmakuledger.edge.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code run} syncs with the live venue's linger, {@code sync} with a catch-up's; {@code --linger}
 * overrides either (docs/sync.md, "Linger").
 */
class LingerDefaultsTest {
  private static SyncCommand.Options parse(String... args) {
    SyncCommand.Options o = new SyncCommand.Options();
    new CommandLine(o).parseArgs(args);
    return o;
  }

  @Test
  void runLingersFiftyMillisecondsAndSyncOneSecond() {
    SyncCommand.Options o = parse();
    assertEquals(Duration.ofMillis(50), o.settings(SyncCommand.RUN_LINGER).linger());
    assertEquals(Duration.ofSeconds(1), o.settings(SyncCommand.SYNC_LINGER).linger());
  }

  @Test
  void anExplicitLingerWinsOverEitherDefault() {
    SyncCommand.Options o = parse("--linger", "PT0.5S");
    assertEquals(Duration.ofMillis(500), o.settings(SyncCommand.RUN_LINGER).linger());
    assertEquals(Duration.ofMillis(500), o.settings(SyncCommand.SYNC_LINGER).linger());
  }

  @Test
  void helpOfRunNamesBothDefaults() {
    // the usage text wraps at 80 columns: compare with the line breaks folded
    String help = new CommandLine(new RunCommand()).getUsageMessage().replaceAll("\\s+", " ");
    assertTrue(help.contains("PT0.05S for run"), help);
    assertTrue(help.contains("PT1S for sync"), help);
  }
}
