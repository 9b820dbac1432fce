package dev.danmakuledger.bench.cli;

import dev.danmakuledger.bench.report.BenchResult;
import dev.danmakuledger.bench.report.Machine;
import dev.danmakuledger.bench.report.Report;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Option;

/** The {@code --json FILE} option every benchmark shares, and printing the table. */
final class Output {
  @Option(
      names = "--json",
      paramLabel = "FILE",
      description = "also write {\"machine\": ..., \"results\": [...]} to FILE")
  Path json;

  /** Prints the machine line and the table, and writes the JSON file when asked. */
  void emit(PrintStream out, List<BenchResult> rows) throws IOException {
    Machine machine = Machine.current();
    out.println();
    Report.print(out, machine, rows);
    if (json != null) {
      Report.writeJson(json, machine, rows);
      out.println("wrote " + json);
    }
  }
}
