package dev.danmakuledger.server.instances;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.danmakuledger.lua.LiveKeys;
import dev.danmakuledger.protocol.wire.Json;
import dev.danmakuledger.protocol.wire.admin.InstanceList;
import dev.danmakuledger.protocol.wire.admin.InstanceList.Instance;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This instance's entry in the shared instance registry (docs/operations.md, "Several instances"):
 * one Redis hash ({@link LiveKeys#instances()}, one slot) with a field per instance id holding its
 * last heartbeat as JSON. An instance whose heartbeat is older than three intervals is DOWN; one
 * silent for a day is removed when the list is read. Registry values come from Redis and are parsed
 * strictly: malformed fields are skipped, never trusted.
 */
public final class InstanceRegistry implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(InstanceRegistry.class);
  private static final ObjectMapper JSON = Json.mapper();
  private static final Duration FORGET_AFTER = Duration.ofDays(1);
  private static final int MAX_FIELD_CHARS = 4_096;

  private final Supplier<RedisClusterCommands<String, String>> redis;
  private final Self self;
  private final Duration every;
  private final Clock clock;
  private final LongSupplier batches;
  private final LongSupplier subscribers;
  private ScheduledExecutorService timer;
  private long lastBatches;
  private Instant lastBeat;

  /** What this instance says about itself. */
  public record Self(String id, String address, String version, Instant startedAt) {
    public Self {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(address, "address");
      Objects.requireNonNull(version, "version");
      Objects.requireNonNull(startedAt, "startedAt");
    }
  }

  /**
   * @param redis the shared Redis commands
   * @param batches batches stored so far by this instance (a counter)
   * @param subscribers open room-stream subscribers now
   */
  public InstanceRegistry(
      Supplier<RedisClusterCommands<String, String>> redis,
      Self self,
      Duration every,
      Clock clock,
      LongSupplier batches,
      LongSupplier subscribers) {
    if (every.toMillis() < 100) {
      throw new IllegalArgumentException("heartbeat: got " + every + ", want >= 100ms");
    }
    this.redis = redis;
    this.self = self;
    this.every = every;
    this.clock = clock;
    this.batches = batches;
    this.subscribers = subscribers;
    this.lastBatches = batches.getAsLong();
    this.lastBeat = clock.instant();
  }

  /** This instance's id in the registry. */
  public String id() {
    return self.id();
  }

  /** Beats now and then every interval. */
  public synchronized void start() {
    beat();
    timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "instance-heartbeat");
              t.setDaemon(true);
              return t;
            });
    long ms = every.toMillis();
    timer.scheduleWithFixedDelay(this::beat, ms, ms, TimeUnit.MILLISECONDS);
  }

  /** Writes this instance's heartbeat; never throws (a missed beat shows as DOWN). */
  public synchronized void beat() {
    Instant now = clock.instant();
    long total = batches.getAsLong();
    double seconds = Math.max(0.001, Duration.between(lastBeat, now).toMillis() / 1000.0);
    double rate = Math.max(0, (total - lastBatches) / seconds);
    lastBatches = total;
    lastBeat = now;
    Instance me =
        new Instance(
            self.id(),
            self.address(),
            self.version(),
            self.startedAt().toString(),
            now.toString(),
            InstanceList.Status.UP,
            Math.round(rate * 100) / 100.0,
            Math.max(0, subscribers.getAsLong()));
    try {
      redis.get().hset(LiveKeys.instances(), self.id(), JSON.writeValueAsString(me));
    } catch (JsonProcessingException | RuntimeException e) {
      log.warn("instance heartbeat failed: {}", e.toString());
    }
  }

  /**
   * Every registered instance, UP ones first, newest heartbeat first within each.
   *
   * @throws RuntimeException when Redis is unreachable
   */
  public InstanceList list() {
    Instant now = clock.instant();
    Map<String, String> all = redis.get().hgetall(LiveKeys.instances());
    List<Instance> out = new ArrayList<>();
    for (Map.Entry<String, String> e : all.entrySet()) {
      Instance i = parse(e.getKey(), e.getValue());
      if (i == null) {
        continue;
      }
      Instant beat = Instant.parse(i.heartbeatAt());
      if (Duration.between(beat, now).compareTo(FORGET_AFTER) > 0) {
        redis.get().hdel(LiveKeys.instances(), e.getKey());
        continue;
      }
      boolean up = Duration.between(beat, now).compareTo(every.multipliedBy(3)) <= 0;
      out.add(
          new Instance(
              i.id(),
              i.address(),
              i.version(),
              i.startedAt(),
              i.heartbeatAt(),
              up ? InstanceList.Status.UP : InstanceList.Status.DOWN,
              i.batchesPerSecond(),
              i.subscribers()));
    }
    out.sort(
        Comparator.comparing(Instance::status)
            .thenComparing(Instance::heartbeatAt, Comparator.reverseOrder())
            .thenComparing(Instance::id));
    return new InstanceList(out);
  }

  /** A registry field as an instance, or null when it is not one (wrong id, bad JSON, bad time). */
  static Instance parse(String field, String value) {
    if (value == null || value.length() > MAX_FIELD_CHARS) {
      return null;
    }
    try {
      Instance i = JSON.readValue(value, Instance.class);
      Instant.parse(i.heartbeatAt());
      Instant.parse(i.startedAt());
      return i.id().equals(field) ? i : null;
    } catch (JsonProcessingException | RuntimeException e) {
      log.debug("instance registry: skipping field {}: {}", field, e.toString());
      return null;
    }
  }

  /** Stops the heartbeat: the entry stays and turns DOWN, so operators see the stop. */
  @Override
  public synchronized void close() {
    if (timer != null) {
      timer.shutdownNow();
    }
  }
}
