package dev.danmakuledger.server.metrics;

import dev.danmakuledger.server.ingest.PipelineStage;
import dev.danmakuledger.server.ingest.StageObserver;
import dev.danmakuledger.server.storage.RoomStats;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The series of {@code GET /metrics} (docs/operations.md, "Metrics"). Latencies are histograms with
 * fixed buckets, so that the quantiles of N instances can be aggregated ({@code histogram_quantile}
 * over {@code sum by (le)}); summaries cannot be. The ledger counters are cluster-wide (the SQL
 * {@code counters} table, docs/architecture.md §5): every instance exposes the same value, so
 * dashboards take {@code max} across instances, never {@code sum}. Room high-water marks are
 * exposed for the {@value #TOP_ROOMS} busiest rooms only, to bound label cardinality.
 *
 * <p>The SQL-backed series are read once per scrape ({@link #scrape()}); a failed read keeps the
 * previous values and counts {@code danmaku_metrics_refresh_failures_total}.
 */
public final class LedgerMetrics implements StageObserver {
  private static final Logger log = LoggerFactory.getLogger(LedgerMetrics.class);

  /** Rooms whose high-water mark is exposed. */
  public static final int TOP_ROOMS = 20;

  /** Histogram bucket bounds shared by every latency series. */
  static final Duration[] BUCKETS = {
    Duration.ofMillis(1),
    Duration.ofMillis(2),
    Duration.ofMillis(5),
    Duration.ofMillis(10),
    Duration.ofMillis(25),
    Duration.ofMillis(50),
    Duration.ofMillis(100),
    Duration.ofMillis(250),
    Duration.ofMillis(500),
    Duration.ofSeconds(1),
    Duration.ofMillis(2500),
    Duration.ofSeconds(5),
    Duration.ofSeconds(10),
    Duration.ofSeconds(30)
  };

  private final PrometheusMeterRegistry registry;
  private final Supplier<LedgerSnapshot> source;
  private final Timer batch;
  private final Map<PipelineStage, Timer> stages = new EnumMap<>(PipelineStage.class);
  private final SteadyRows rooms;
  private final io.micrometer.core.instrument.Counter refreshFailures;
  private final Object refreshLock = new Object();
  private volatile LedgerSnapshot last = LedgerSnapshot.EMPTY;

  /**
   * @param registry where the series are registered
   * @param source reads the cluster-wide counters and room marks (from SQL), once per scrape
   */
  public LedgerMetrics(PrometheusMeterRegistry registry, Supplier<LedgerSnapshot> source) {
    this.registry = Objects.requireNonNull(registry, "registry");
    this.source = Objects.requireNonNull(source, "source");
    this.batch = histogram("danmaku.batch", "time to verify and store one batch, end to end");
    for (PipelineStage s : PipelineStage.values()) {
      stages.put(
          s,
          Timer.builder("danmaku.stage")
              .description("time of one stage of the batch pipeline")
              .tag("stage", s.label())
              .serviceLevelObjectives(BUCKETS)
              .register(registry));
    }
    ledger("danmaku.ledger.batches", "batches stored (cluster)", LedgerSnapshot::batches);
    ledger("danmaku.ledger.records", "records stored (cluster)", LedgerSnapshot::records);
    duplicates("edge", "duplicates the edge agents report (max per device, summed)", s -> s.edge());
    duplicates("redis", "duplicates the Redis admit caught (cluster)", LedgerSnapshot::redis);
    duplicates("sql", "duplicates the SQL UNIQUE key caught (cluster)", LedgerSnapshot::sql);
    ledger(
        "danmaku.ledger.conflicts",
        "records whose key was stored with other content (cluster)",
        LedgerSnapshot::conflicts);
    ledger("danmaku.ledger.forks", "device logs found forked (cluster)", LedgerSnapshot::forks);
    ledger(
        "danmaku.ledger.bad.signatures",
        "batches refused for a bad checkpoint signature (cluster)",
        LedgerSnapshot::badSignatures);
    ledger(
        "danmaku.ledger.tombstones",
        "room numbers that became tombstones (cluster)",
        LedgerSnapshot::tombstones);
    ledger(
        "danmaku.ledger.sealed.gaps",
        "room numbers sealed by the gap sealer (cluster, also in tombstones)",
        LedgerSnapshot::sealedGaps);
    ledger(
        "danmaku.ledger.stuck.episodes",
        "STUCK episodes opened: devices whose upload queue stopped draining (cluster)",
        LedgerSnapshot::stuckEpisodes);
    ledger(
        "danmaku.ledger.unverified.reports",
        "device reports whose signature did not verify, not stored (cluster)",
        LedgerSnapshot::unverifiedReports);
    this.rooms =
        new SteadyRows(
            MultiGauge.builder("danmaku.room.high.water")
                .description("highest room number handed out, for the busiest rooms (cluster)")
                .register(registry));
    this.refreshFailures =
        io.micrometer.core.instrument.Counter.builder("danmaku.metrics.refresh.failures")
            .description("scrapes that could not read the ledger counters from SQL")
            .register(registry);
  }

  private Timer histogram(String name, String description) {
    return Timer.builder(name)
        .description(description)
        .serviceLevelObjectives(BUCKETS)
        .register(registry);
  }

  private void ledger(String name, String description, ToLongFunction<LedgerSnapshot> value) {
    FunctionCounter.builder(name, this, m -> value.applyAsLong(m.last))
        .description(description)
        .register(registry);
  }

  private void duplicates(String layer, String description, ToLongFunction<LedgerSnapshot> value) {
    FunctionCounter.builder("danmaku.ledger.duplicates", this, m -> value.applyAsLong(m.last))
        .description("duplicates caught, by layer: " + description)
        .tag("layer", layer)
        .register(registry);
  }

  /** The registry, for series other parts of the server register (JVM, HTTP, SSE). */
  public PrometheusMeterRegistry registry() {
    return registry;
  }

  /** The end-to-end batch latency histogram. */
  public Timer batchTimer() {
    return batch;
  }

  /** Reads the ledger counters, then returns the exposition in the Prometheus text format. */
  public String scrape() {
    refresh();
    return registry.scrape();
  }

  /** Reads the cluster-wide values from their source; on failure keeps the previous ones. */
  void refresh() {
    synchronized (refreshLock) {
      LedgerSnapshot s;
      try {
        s = source.get();
      } catch (RuntimeException e) {
        refreshFailures.increment();
        log.warn("metrics: cannot read the ledger counters: {}", e.toString());
        return;
      }
      last = s;
      Map<Tags, Long> highs = new LinkedHashMap<>();
      for (RoomStats r : s.busiestRooms()) {
        highs.put(Tags.of("room", r.room()), r.highSeq());
      }
      rooms.show(highs);
    }
  }

  @Override
  public Scope start(PipelineStage stage) {
    Timer timer = stages.get(stage);
    Timer.Sample sample = Timer.start(registry);
    return new Scope() {
      @Override
      public void failed(Exception e) {}

      @Override
      public void end() {
        sample.stop(timer);
      }
    };
  }
}
