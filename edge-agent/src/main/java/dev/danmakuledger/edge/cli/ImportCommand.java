package dev.danmakuledger.edge.cli;

import dev.danmakuledger.edge.EdgeAgent;
import dev.danmakuledger.edge.importer.BilibiliImporter;
import dev.danmakuledger.edge.importer.ImportProgress;
import dev.danmakuledger.edge.importer.ImportSummary;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code edge-agent import}: bulk capture from a file, with group commit. */
@Command(
    name = "import",
    mixinStandardHelpOptions = true,
    description = {
      "Capture every entry of a danmaku file into one room (group commit).",
      "Keys derive from the source entries, so importing a file again captures nothing new.",
      "Malformed entries are reported with their line and skipped."
    })
final class ImportCommand implements Callable<Integer>, EdgeAgentMain.ClockAware {
  /** Input formats. */
  enum Format {
    bilibili
  }

  /** Show at most this many skipped entries in the summary. */
  static final int SHOW_SKIPPED = 20;

  @Spec CommandSpec spec;
  @Mixin DataDirOption dir;

  @Option(
      names = "--room",
      required = true,
      paramLabel = "ROOM",
      description = "Room for all entries.")
  String room;

  @Option(
      names = "--format",
      defaultValue = "bilibili",
      paramLabel = "FORMAT",
      description = "Input format: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
  Format format;

  @Option(
      names = "--progress",
      negatable = true,
      description = "Progress bar (default: on a terminal).")
  Boolean progress;

  @Parameters(index = "0", paramLabel = "FILE", description = "The file to import.")
  Path file;

  private Clock clock;

  @Override
  public void clock(Clock clock) {
    this.clock = clock;
  }

  @Override
  public Integer call() throws Exception {
    if (!Files.isReadable(file)) {
      throw new NoSuchFileException(file.toString(), null, "cannot read the import file");
    }
    PrintWriter out = spec.commandLine().getOut();
    boolean showProgress = progress != null ? progress : System.console() != null;
    ProgressBar bar =
        showProgress ? new ProgressBar(spec.commandLine().getErr(), "importing") : null;
    ImportSummary summary;
    try (EdgeAgent agent = EdgeAgent.open(dir.dataDir, clock)) {
      summary =
          new BilibiliImporter(agent.capture())
              .importFile(file, room, bar == null ? ImportProgress.none() : bar);
    } finally {
      if (bar != null) {
        bar.finish();
      }
    }
    out.printf(
        "entries: %d, captured: %d, duplicates: %d, conflicts: %d, skipped: %d%n",
        summary.entries(),
        summary.captured(),
        summary.duplicates(),
        summary.conflicts().size(),
        summary.skipped().size());
    list(out, "skipped", summary.skipped());
    list(out, "conflict", summary.conflicts());
    if (summary.fatal() != null) {
      out.printf("stopped early: %s%n", summary.fatal());
    }
    return summary.complete() ? ExitCodes.OK : ExitCodes.FAILED;
  }

  private static void list(PrintWriter out, String what, List<ImportSummary.Skipped> entries) {
    entries.stream()
        .limit(SHOW_SKIPPED)
        .forEach(s -> out.printf("  %s, line %d: %s%n", what, s.line(), s.reason()));
    if (entries.size() > SHOW_SKIPPED) {
      out.printf("  ... and %d more%n", entries.size() - SHOW_SKIPPED);
    }
  }
}
