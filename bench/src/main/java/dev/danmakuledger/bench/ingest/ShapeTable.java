package dev.danmakuledger.bench.ingest;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The e2e runs of one invocation as one table (docs/benchmarks.md, "e2e: shapes"): a row per run
 * with its same-run baselines, then the ratios the targets are stated in — a live run against the
 * batch-500 run of its rooms, one room against 32 rooms, the database's CPU per record at batch 20
 * against batch 500.
 */
public final class ShapeTable {
  private static final String RAW = "mariadb-raw-insert";
  private static final String RAW_H2 = "h2-raw-insert";

  /** One run: what it was asked to do and what it measured. */
  public record Entry(IngestBenchmark.Options options, IngestBenchmark.Run run) {}

  private ShapeTable() {}

  /** The table in Markdown, then the target ratios found among {@code entries}. */
  public static String markdown(List<Entry> entries) {
    StringBuilder out = new StringBuilder();
    out.append(
        "| batch | devices | rooms | ledger rec/s | p99 ms | batches/tick | raw insert rec/s"
            + " | ledger/raw | nats-jetstream-msgid rec/s | ledger/nats | database µs/rec |\n");
    out.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Entry e : entries) {
      IngestBenchmark.Options o = e.options();
      IngestBenchmark.Run r = e.run();
      double ours = r.ours().perSecond();
      Optional<Measured> raw = r.baseline(RAW).or(() -> r.baseline(RAW_H2));
      Optional<Measured> nats = r.baseline(NatsJetStreamBaseline.NAME);
      out.append(
          String.format(
              Locale.ROOT,
              "| %d | %d | %d | %,.0f | %.1f | %.1f | %s | %s | %s | %s | %s |%n",
              o.batchSize(),
              o.devices(),
              o.rooms(),
              ours,
              r.ours().p99Ms(),
              r.batchesPerTick(),
              raw.map(m -> String.format(Locale.ROOT, "%,.0f", m.perSecond())).orElse("–"),
              raw.map(m -> ratio(ours, m.perSecond())).orElse("–"),
              nats.map(m -> String.format(Locale.ROOT, "%,.0f", m.perSecond())).orElse("–"),
              nats.map(m -> ratio(ours, m.perSecond())).orElse("–"),
              micros(DatabaseWork.micros(r.ours()))));
    }
    List<String> targets = targets(entries);
    if (!targets.isEmpty()) {
      out.append('\n');
      for (String t : targets) {
        out.append("- ").append(t).append('\n');
      }
    }
    return out.toString();
  }

  private static List<String> targets(List<Entry> entries) {
    List<String> out = new ArrayList<>();
    for (Entry live : entries) {
      IngestBenchmark.Options o = live.options();
      if (o.batchSize() != 20) {
        continue;
      }
      find(entries, 500, -1, o.rooms())
          .ifPresent(
              ref ->
                  out.add(
                      String.format(
                          Locale.ROOT,
                          "batch 20, %d devices, %d rooms: %s of batch 500 (%d devices) in the"
                              + " same run (target >= 0.70)",
                          o.devices(),
                          o.rooms(),
                          ratio(live.run().ours().perSecond(), ref.run().ours().perSecond()),
                          ref.options().devices())));
      if (o.rooms() == 1) {
        find(entries, 20, o.devices(), 32)
            .ifPresent(
                many ->
                    out.add(
                        String.format(
                            Locale.ROOT,
                            "batch 20, %d devices: 1 room at %s of 32 rooms (target >= 0.90)",
                            o.devices(),
                            ratio(live.run().ours().perSecond(), many.run().ours().perSecond()))));
      }
      find(entries, 500, -1, o.rooms())
          .ifPresent(
              ref -> {
                double at20 = DatabaseWork.micros(live.run().ours());
                double at500 = DatabaseWork.micros(ref.run().ours());
                if (at20 > 0 && at500 > 0) {
                  out.add(
                      String.format(
                          Locale.ROOT,
                          "batch 20, %d devices, %d rooms: database CPU a record %.1f µs, %.2f×"
                              + " batch 500's %.1f µs (target <= 1.5)",
                          o.devices(),
                          o.rooms(),
                          at20,
                          at20 / at500,
                          at500));
                }
              });
    }
    return out;
  }

  /** The first entry of {@code batch}, {@code devices} (-1: any) and {@code rooms}. */
  private static Optional<Entry> find(List<Entry> entries, int batch, int devices, int rooms) {
    return entries.stream()
        .filter(
            e ->
                e.options().batchSize() == batch
                    && (devices < 0 || e.options().devices() == devices)
                    && e.options().rooms() == rooms)
        .findFirst();
  }

  private static String ratio(double ours, double base) {
    return base > 0 ? String.format(Locale.ROOT, "%.2f", ours / base) : "–";
  }

  private static String micros(double us) {
    return us > 0 ? String.format(Locale.ROOT, "%.1f", us) : "–";
  }
}
