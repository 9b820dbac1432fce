package dev.danmakuledger.server.kafka;

import dev.danmakuledger.server.storage.ConfirmedFeed;
import dev.danmakuledger.server.storage.StorageUnavailableException;
import io.lettuce.core.RedisException;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Relays every CONFIRMED message to Kafka exactly once, in confirmation-cursor order per room
 * (docs/kafka.md): one thread that reads the rooms' last cursors from SQL, and for each relay shard
 * this instance holds the lease of, publishes what SQL holds past the shard's committed positions
 * in one Kafka transaction together with the new positions ({@link ShardRelay}). Ingest never waits
 * for it; when Kafka cannot be reached the relay raises one alert per episode and catches up once
 * it can.
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
  private final ConfirmedFeed feed;
  private final ShardLeases leases;
  private final Consumer<String> unreachableAlert;
  private final Clock clock;
  private final String instance;
  private final ShardRelay[] shards;
  private final RelayLag lag = new RelayLag();
  private final AtomicLong published = new AtomicLong();
  private final Thread thread;
  private final ExecutorService workers;
  private final Object wakeLock = new Object();
  private boolean woken;
  private volatile boolean running;
  private volatile boolean reachable = true;
  private volatile boolean topicsReady;
  private long failingSince = -1;
  private final AtomicLong failures = new AtomicLong();
  private long leasesCheckedAt = Long.MIN_VALUE;
  private final RelayReports reports;
  private final ScheduledExecutorService reporter;
  private MultiGauge lagRecords;
  private MultiGauge lagMillis;

  /**
   * A relay for {@code config} that reads {@code feed}, takes shard leases in {@code redis} as
   * {@code instance}, and calls {@code unreachableAlert} with a description once per episode in
   * which Kafka cannot be reached.
   */
  public KafkaRelay(
      KafkaRelayConfig config,
      ConfirmedFeed feed,
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
    this.shards = new ShardRelay[config.shards()];
    this.workers =
        Executors.newFixedThreadPool(
            config.shards(),
            r -> {
              Thread t = new Thread(r, "kafka-relay-shard-" + config.topic());
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
    lagRecords =
        MultiGauge.builder("danmaku.kafka.relay.room.behind")
            .description("confirmed messages of the room not yet in the topic")
            .register(registry);
    lagMillis =
        MultiGauge.builder("danmaku.kafka.relay.room.lag")
            .baseUnit("milliseconds")
            .description("how long the room has been behind")
            .register(registry);
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
    synchronized (shards) {
      for (ShardRelay s : shards) {
        if (s != null) {
          out.add(s.shard());
        }
      }
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

  private void loop() {
    while (running) {
      int sent;
      try {
        sent = step();
      } catch (StorageUnavailableException | RedisException e) {
        log.warn("kafka relay: cannot read SQL or Redis: {}", e.toString());
        sent = -1;
      } catch (KafkaException e) {
        unreachable(e);
        sent = -1;
      } catch (RuntimeException e) {
        log.error("kafka relay step failed", e);
        sent = -1;
      }
      if (sent != 0 && sent != -1) {
        continue;
      }
      if (sent == -1) {
        pause(RETRY);
      } else {
        idle(config.poll());
      }
    }
  }

  /**
   * Wakes the relay at once: this instance committed confirmations (docs/kafka.md, "Lag"). Never
   * blocks; a wake during a round makes the next round start without waiting.
   */
  public void wake() {
    synchronized (wakeLock) {
      woken = true;
      wakeLock.notifyAll();
    }
  }

  /** Waits until {@link #wake} or for {@code most}, whichever comes first. */
  private void idle(Duration most) {
    long deadline = System.nanoTime() + most.toNanos();
    synchronized (wakeLock) {
      try {
        long left;
        while (!woken && (left = deadline - System.nanoTime()) > 0) {
          TimeUnit.NANOSECONDS.timedWait(wakeLock, left);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        running = false;
      }
      woken = false;
    }
  }

  /** One round: leases, then each shard held; the number of messages published. */
  int step() {
    renewLeases();
    if (!topicsReady) {
      RelayTopics.ensure(config);
      topicsReady = true;
    }
    Map<String, Long> heads = feed.heads();
    Map<Integer, Map<String, Long>> byShard = new HashMap<>();
    for (Map.Entry<String, Long> e : heads.entrySet()) {
      byShard
          .computeIfAbsent(config.shardOf(e.getKey()), s -> new HashMap<>())
          .put(e.getKey(), e.getValue());
    }
    List<ShardRelay> held = held();
    List<Future<Integer>> running = new ArrayList<>();
    for (ShardRelay s : held) {
      Map<String, Long> mine = byShard.getOrDefault(s.shard(), Map.of());
      running.add(workers.submit(() -> runShard(s, mine)));
    }
    int sent = 0;
    boolean failed = false;
    for (Future<Integer> f : running) {
      int n = await(f);
      failed |= n < 0;
      sent += Math.max(0, n);
    }
    publishGauges();
    return failed && sent == 0 ? -1 : sent;
  }

  /**
   * Writes the lag reports of the shards this instance runs, on a thread of its own every {@link
   * #REPORT_EVERY} (a relay round that waits for Kafka does not hold them back); a report that
   * cannot be written is left for the next (the relay does not wait for Redis).
   */
  private void report() {
    long now = clock.millis();
    List<RelayReports.ShardReport> out = new ArrayList<>();
    for (ShardRelay s : held()) {
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

  private static int await(Future<Integer> f) {
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KafkaException("interrupted", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException(e.getCause());
    }
  }

  /**
   * One shard's part of a round, on a worker thread (the shards of an instance publish in parallel,
   * each one transaction at a time): the number of messages published, -1 on failure.
   */
  private int runShard(ShardRelay s, Map<String, Long> mine) {
    int sent = -1;
    try {
      if (!s.open()) {
        s.openShard();
        log.info("kafka relay: runs shard {} of {}", s.shard(), config.topic());
      }
      ShardRelay.Published p = s.publish(feed, mine, config.maxRecordsPerTransaction());
      sent = p.records();
      published.addAndGet(p.records());
      reachableAgain();
    } catch (ProducerFencedException | InvalidProducerEpochException e) {
      log.warn("kafka relay: shard {} fenced by a newer owner: {}", s.shard(), e.toString());
      failures.incrementAndGet();
      s.close();
    } catch (KafkaException e) {
      s.close();
      unreachable(e);
    }
    long now = clock.millis();
    for (Map.Entry<String, Long> e : mine.entrySet()) {
      lag.saw(e.getKey(), s.shard(), e.getValue(), s.position(e.getKey()), now);
    }
    return sent;
  }

  private List<ShardRelay> held() {
    List<ShardRelay> out = new ArrayList<>();
    synchronized (shards) {
      for (ShardRelay s : shards) {
        if (s != null) {
          out.add(s);
        }
      }
    }
    return out;
  }

  private void renewLeases() {
    long now = clock.millis();
    if (now - leasesCheckedAt < config.lease().toMillis() / 3
        && leasesCheckedAt != Long.MIN_VALUE) {
      return;
    }
    leasesCheckedAt = now;
    for (int i = 0; i < shards.length; i++) {
      boolean has = leases.takeOrKeep(i);
      synchronized (shards) {
        if (has && shards[i] == null) {
          shards[i] = new ShardRelay(config, i, instance);
        } else if (!has && shards[i] != null) {
          log.info("kafka relay: lease of shard {} lost", i);
          shards[i].close();
          shards[i] = null;
          lag.forgetShard(i);
        }
      }
    }
  }

  private void publishGauges() {
    if (lagRecords == null) {
      return;
    }
    List<RoomLag> top = lag.top(LAG_GAUGE_ROOMS);
    List<MultiGauge.Row<?>> records = new ArrayList<>();
    List<MultiGauge.Row<?>> millis = new ArrayList<>();
    for (RoomLag l : top) {
      Tags tags = Tags.of("room", l.room(), "shard", Integer.toString(l.shard()));
      records.add(MultiGauge.Row.of(tags, l.records()));
      millis.add(MultiGauge.Row.of(tags, l.millis()));
    }
    lagRecords.register(records, true);
    lagMillis.register(millis, true);
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

  /** Stops the relay thread, closes the producers and gives the leases up. */
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
    workers.shutdownNow();
    synchronized (shards) {
      for (int i = 0; i < shards.length; i++) {
        if (shards[i] != null) {
          shards[i].close();
          shards[i] = null;
          try {
            leases.release(i);
          } catch (RedisException e) {
            log.warn("kafka relay: cannot release the lease of shard {}: {}", i, e.toString());
          }
        }
      }
    }
  }
}
