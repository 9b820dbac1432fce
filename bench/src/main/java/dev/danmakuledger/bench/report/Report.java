package dev.danmakuledger.bench.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Prints benchmark rows as a table and writes them as the JSON document of {@code --json}. */
public final class Report {
  private Report() {}

  /** Prints the machine line and one table row per result. */
  public static void print(PrintStream out, Machine machine, List<BenchResult> results) {
    out.println("machine: " + machine.describe());
    String header =
        String.format(
            Locale.ROOT,
            "%-8s %-12s %14s  %-22s %14s %7s %9s  %s",
            "bench",
            "metric",
            "ours",
            "baseline",
            "baseline",
            "ratio",
            "p99 ms",
            "note");
    out.println(header);
    out.println("-".repeat(header.length()));
    for (BenchResult r : results) {
      out.println(
          String.format(
              Locale.ROOT,
              "%-8s %-12s %14s  %-22s %14s %7s %9s  %s",
              r.benchmark(),
              r.metric(),
              number(r.ours()),
              r.baseline() == null ? "" : r.baseline(),
              r.baseline() == null ? "" : number(r.baselineValue()),
              r.ratio() == null ? "-" : String.format(Locale.ROOT, "%.2f", r.ratio()),
              r.p99Ms() == null ? "" : String.format(Locale.ROOT, "%.2f", r.p99Ms()),
              r.note() == null ? "" : r.note()));
    }
  }

  /** Writes {@code {"machine": {...}, "results": [...]}} to {@code file}. */
  public static void writeJson(Path file, Machine machine, List<BenchResult> results)
      throws IOException {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("machine", machine);
    doc.put("results", results);
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file.toFile(), doc);
  }

  private static String number(Double v) {
    if (v == null) {
      return "not measured";
    }
    return v >= 100
        ? String.format(Locale.ROOT, "%,.0f", v)
        : String.format(Locale.ROOT, "%.3f", v);
  }
}
