package dev.danmakuledger.server.kafka;

import dev.danmakuledger.server.storage.StorageUnavailableException;
import io.lettuce.core.RedisException;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.kafka.common.KafkaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Relays every CONFIRMED message to Kafka exactly once, in confirmation-cursor order per room
 * (docs/kafka.md): for each relay shard this instance holds the lease of, a loop of its own ({@link
 * ShardLoop}) publishes what SQL holds past the shard's committed positions, one Kafka transaction
 * at a time, each together with the new positions ({@link ShardRelay}). The loops learn the rooms'
 * heads from this instance's commits ({@link #committed}) and from a read of every room's head that
 * one thread makes every {@link KafkaRelayConfig#poll} (the commits of other instances); that
 * thread also keeps the leases. Ingest never waits for it; when Kafka cannot be reached the relay
 * raises one alert per episode and catches up once it can.
 */
public final class KafkaRelay implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(KafkaRelay.class);

  /** Rooms the per-room lag gauges show, most behind first. */
  static final int LAG_GAUGE_ROOMS = 100;

  private static final Duration RETRY = Duration.ofMillis(500);

  /** How often the relay writes its shards' lag reports (docs/kafka.md, "Lag"). */
  static final Duration REPORT_EVERY = Duration.ofSeconds(1);

  /**
   * How long Kafka must keep failing before an episode starts: a topic just created or a leader
   * moving fails a call or two without the brokers being out of reach.
   */
  static final Duration UNREACHABLE_AFTER = Duration.ofSeconds(10);

  private final KafkaRelayConfig config;
  private final RelayFeed feed;
  private final ShardLeases leases;
  private final Consumer<String> unreachableAlert;
  private final Clock clock;
  private final String instance;
  private final AtomicReferenceArray<ShardLoop> loops;
  private final RelayLag lag = new RelayLag();
  private final RelayPhases phases = new RelayPhases();
  private final AtomicLong published = new AtomicLong();
  private final Thread thread;
  private final ExecutorService prefetcher;
  private volatile boolean running;
  private volatile boolean reachable = true;
  private volatile boolean topicsReady;
  private long failingSince = -1;
  private final AtomicLong failures = new AtomicLong();
  private long leasesCheckedAt = Long.MIN_VALUE;
  private long fullReadAt = Long.MIN_VALUE;
  private final RelayReports reports;
  private final ScheduledExecutorService reporter;
  private RoomLagGauges lagGauges;

  /**
   * A relay for {@code config} that reads {@code feed}, takes shard leases in {@code redis} as
   * {@code instance}, and calls {@code unreachableAlert} with a description once per episode in
   * which Kafka cannot be reached.
   */
  public KafkaRelay(
      KafkaRelayConfig config,
      RelayFeed feed,
      Supplier<RedisClusterCommands<String, String>> redis,
      String instance,
      Consumer<String> unreachableAlert,
      Clock clock) {
    this.config = Objects.requireNonNull(config, "config");
    this.feed = Objects.requireNonNull(feed, "feed");
    this.instance = Objects.requireNonNull(instance, "instance");
    this.leases = new ShardLeases(redis, config, instance);
    this.reports = new RelayReports(redis, config);
    this.unreachableAlert = Objects.requireNonNull(unreachableAlert, "unreachableAlert");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.loops = new AtomicReferenceArray<>(config.shards());
    this.prefetcher =
        Executors.newFixedThreadPool(
            config.shards(),
            r -> {
              Thread t = new Thread(r, "kafka-relay-prefetch-" + config.topic());
              t.setDaemon(true);
              return t;
            });
    this.reporter =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "kafka-relay-reports-" + config.topic());
              t.setDaemon(true);
              return t;
            });
    this.thread = new Thread(this::loop, "kafka-relay-" + config.topic());
    this.thread.setDaemon(true);
  }

  /** Registers the relay's meters (docs/kafka.md, "Lag") in {@code registry}. */
  public KafkaRelay meteredBy(MeterRegistry registry) {
    Gauge.builder("danmaku.kafka.relay.shards.owned", this, r -> r.ownedShards().size())
        .description("relay shards this instance runs")
        .register(registry);
    Gauge.builder("danmaku.kafka.relay.reachable", this, r -> r.reachable() ? 1 : 0)
        .description("1 while the relay reaches Kafka, 0 in an unreachable episode")
        .register(registry);
    FunctionCounter.builder("danmaku.kafka.relay.failures", failures, AtomicLong::get)
        .description("relay rounds that failed on Kafka (fencing included)")
        .register(registry);
    FunctionCounter.builder("danmaku.kafka.relay.published", published, AtomicLong::get)
        .description("messages this instance committed to the topic")
        .register(registry);
    Gauge.builder("danmaku.kafka.relay.behind", lag, RelayLag::totalRecords)
        .description("confirmed messages not yet in the topic, rooms of this instance's shards")
        .register(registry);
    Gauge.builder("danmaku.kafka.relay.lag.max", lag, RelayLag::maxMillis)
        .baseUnit("milliseconds")
        .description("longest time a room of this instance's shards has been behind")
        .register(registry);
    phases.register(registry);
    lagGauges = new RoomLagGauges(registry);
    return this;
  }

  /** Starts the relay thread. */
  public void start() {
    running = true;
    thread.start();
    long every = REPORT_EVERY.toMillis();
    reporter.scheduleWithFixedDelay(this::report, every, every, TimeUnit.MILLISECONDS);
  }

  /** The shards this instance runs now. */
  public Set<Integer> ownedShards() {
    Set<Integer> out = new TreeSet<>();
    for (ShardLoop l : held()) {
      out.add(l.shard());
    }
    return out;
  }

  /** False during an episode in which the relay cannot reach Kafka. */
  public boolean reachable() {
    return reachable;
  }

  /** Relay rounds that failed on Kafka so far. */
  public long failures() {
    return failures.get();
  }

  /** Messages this instance committed to the topic so far. */
  public long published() {
    return published.get();
  }

  /** The rooms of this instance's shards, most records behind first, at most {@code limit}. */
  public List<RoomLag> lag(int limit) {
    return lag.top(limit);
  }

  /** The configuration. */
  public KafkaRelayConfig config() {
    return config;
  }

  /**
   * The thread that keeps the leases, creates the topics, starts the loops of the shards held and
   * reads every room's head every {@link KafkaRelayConfig#poll}.
   */
  private void loop() {
    while (running) {
      Duration next;
      try {
        next = tick();
      } catch (StorageUnavailableException | RedisException e) {
        log.warn("kafka relay: cannot read SQL or Redis: {}", e.toString());
        next = RETRY;
      } catch (KafkaException e) {
        unreachable(e);
        next = RETRY;
      } catch (RuntimeException e) {
        log.error("kafka relay step failed", e);
        next = RETRY;
      }
      pause(next);
    }
  }

  /**
   * Tells the shards' loops that this instance committed confirmations: rooms to the highest cursor
   * the commit gave out, or 0 when the commit's cursors are not known here (an approval; the loop
   * reads the room's head). Never blocks: ingest does not wait for the relay (docs/kafka.md,
   * "Lag").
   */
  public void committed(Map<String, Long> heads) {
    for (Map.Entry<String, Long> e : heads.entrySet()) {
      ShardLoop l = loops.get(config.shardOf(e.getKey()));
      if (l != null) {
        l.offer(e.getKey(), e.getValue());
      }
    }
  }

  /**
   * One turn of the relay thread: leases (every third of the lease), topics, loops, and the read of
   * every room's head when it is due; how long until the next turn.
   */
  Duration tick() {
    boolean taken = renewLeases();
    if (!topicsReady) {
      RelayTopics.ensure(config);
      topicsReady = true;
    }
    for (ShardLoop l : held()) {
      l.start();
    }
    long now = clock.millis();
    long every = config.poll().toMillis();
    if (taken || fullReadAt == Long.MIN_VALUE || now - fullReadAt >= every) {
      fullReadAt = now;
      long started = System.nanoTime();
      Map<String, Long> heads = feed.heads();
      phases.ran(RelayPhases.Phase.HEADS, started);
      Map<Integer, Map<String, Long>> byShard = new HashMap<>();
      for (Map.Entry<String, Long> e : heads.entrySet()) {
        byShard
            .computeIfAbsent(config.shardOf(e.getKey()), s -> new HashMap<>())
            .put(e.getKey(), e.getValue());
      }
      for (ShardLoop l : held()) {
        l.offerAll(byShard.getOrDefault(l.shard(), Map.of()));
      }
    }
    publishGauges();
    long leaseDue = leasesCheckedAt + config.lease().toMillis() / 3 - now;
    long readDue = fullReadAt + every - now;
    return Duration.ofMillis(Math.max(1, Math.min(leaseDue, readDue)));
  }

  /**
   * Writes the lag reports of the shards this instance runs, on a thread of its own every {@link
   * #REPORT_EVERY} (a transaction that waits for Kafka does not hold them back); a report that
   * cannot be written is left for the next (the relay does not wait for Redis).
   */
  private void report() {
    long now = clock.millis();
    List<RelayReports.ShardReport> out = new ArrayList<>();
    for (ShardLoop s : held()) {
      List<RoomLag> behind = lag.behind(s.shard());
      long records = 0;
      long millis = 0;
      for (RoomLag l : behind) {
        records += l.records();
        millis = Math.max(millis, l.millis());
      }
      out.add(
          new RelayReports.ShardReport(
              s.shard(),
              instance,
              now,
              reachable,
              records,
              millis,
              behind.subList(0, Math.min(RelayReports.ROOMS, behind.size())),
              behind.size() <= RelayReports.ROOMS));
    }
    try {
      reports.write(out);
    } catch (RuntimeException e) {
      log.debug("kafka relay: cannot write the lag reports: {}", e.toString());
    }
  }

  /** What a shard's loop reports: counters, the alert episode, the rooms' lag. */
  private ShardLoop.Outcome outcome(int shard) {
    return new ShardLoop.Outcome() {
      @Override
      public void succeeded(int records) {
        published.addAndGet(records);
        reachableAgain();
      }

      @Override
      public void fenced(KafkaException e) {
        log.warn("kafka relay: shard {} fenced by a newer owner: {}", shard, e.toString());
        failures.incrementAndGet();
      }

      @Override
      public void failed(KafkaException e) {
        unreachable(e);
      }

      @Override
      public void broken(RuntimeException e) {
        if (e instanceof StorageUnavailableException) {
          log.warn("kafka relay: shard {} cannot read SQL: {}", shard, e.toString());
        } else {
          log.error("kafka relay: shard {} failed", shard, e);
        }
      }

      @Override
      public void saw(String room, long head, long position) {
        lag.saw(room, shard, head, position, clock.millis());
      }
    };
  }

  private List<ShardLoop> held() {
    List<ShardLoop> out = new ArrayList<>();
    for (int i = 0; i < loops.length(); i++) {
      ShardLoop l = loops.get(i);
      if (l != null) {
        out.add(l);
      }
    }
    return out;
  }

  /** Takes or keeps the leases when due; true when a shard was taken. */
  private boolean renewLeases() {
    long now = clock.millis();
    if (now - leasesCheckedAt < config.lease().toMillis() / 3
        && leasesCheckedAt != Long.MIN_VALUE) {
      return false;
    }
    leasesCheckedAt = now;
    boolean taken = false;
    for (int i = 0; i < loops.length(); i++) {
      boolean has = leases.takeOrKeep(i);
      ShardLoop l = loops.get(i);
      if (has && l == null) {
        loops.set(
            i,
            new ShardLoop(
                new ShardRelay(config, i, instance),
                feed,
                config.maxRecordsPerTransaction(),
                RETRY,
                phases,
                prefetcher,
                outcome(i),
                "kafka-relay-shard-" + i + "-" + config.topic()));
        taken = true;
      } else if (!has && l != null) {
        log.info("kafka relay: lease of shard {} lost", i);
        loops.set(i, null);
        l.stop();
        lag.forgetShard(i);
      }
    }
    return taken;
  }

  private void publishGauges() {
    if (lagGauges != null) {
      lagGauges.show(lag.top(LAG_GAUGE_ROOMS));
    }
  }

  private synchronized void unreachable(KafkaException e) {
    log.warn("kafka relay: cannot reach Kafka at {}: {}", config.bootstrap(), e.toString());
    failures.incrementAndGet();
    long now = clock.millis();
    if (failingSince < 0) {
      failingSince = now;
    }
    if (reachable && now - failingSince >= UNREACHABLE_AFTER.toMillis()) {
      reachable = false;
      unreachableAlert.accept(
          "the Kafka relay cannot reach "
              + config.bootstrap()
              + " ("
              + e.getClass().getSimpleName()
              + ": "
              + e.getMessage()
              + "); the ledger keeps accepting and the relay catches up once it can");
    }
  }

  private synchronized void reachableAgain() {
    failingSince = -1;
    if (!reachable) {
      reachable = true;
      log.info("kafka relay: reaches {} again", config.bootstrap());
    }
  }

  private void pause(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      running = false;
    }
  }

  /** Stops the relay thread and the shards' loops, closes the producers, gives the leases up. */
  @Override
  public void close() {
    running = false;
    reporter.shutdownNow();
    thread.interrupt();
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    List<ShardLoop> held = held();
    for (ShardLoop l : held) {
      l.stop();
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    for (ShardLoop l : held) {
      l.join(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
      loops.set(l.shard(), null);
      try {
        leases.release(l.shard());
      } catch (RedisException e) {
        log.warn("kafka relay: cannot release the lease of shard {}: {}", l.shard(), e.toString());
      }
    }
    prefetcher.shutdownNow();
  }
}
