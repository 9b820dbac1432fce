package dev.danmakuledger.server.kafka;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.danmakuledger.protocol.wire.Json;
import dev.danmakuledger.protocol.wire.admin.RelayLag;
import dev.danmakuledger.protocol.wire.admin.RoomSummary;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.time.Clock;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay's lag as every instance reads it (docs/kafka.md, "Lag"): each instance writes, for each
 * shard it runs, a report into one Redis hash of the topic ({@link KafkaRelayConfig#lagKey()},
 * field = the shard): its instance, when, whether it reaches Kafka, the shard's sums and its rooms
 * that are behind, the {@value #ROOMS} most behind. Any instance reads the hash to answer the admin
 * API. A report older than the lease has no running owner behind it and counts as missing. Reports
 * come from Redis and are parsed strictly: a malformed or oversized one is skipped, never trusted.
 */
public final class RelayReports {
  private static final Logger log = LoggerFactory.getLogger(RelayReports.class);
  private static final ObjectMapper JSON = Json.mapper();

  /** Rooms a shard's report names at most, most behind first. */
  static final int ROOMS = 1_000;

  /** Longest report read: {@value #ROOMS} rooms of the longest names and counts fit. */
  static final int MAX_REPORT_CHARS = 512 * 1024;

  /**
   * One shard's report.
   *
   * @param shard the shard
   * @param instance the instance that runs it
   * @param at when the report was written, epoch milliseconds
   * @param reachable false while that instance cannot reach Kafka
   * @param behind the sum over the shard's rooms
   * @param lagMaxMillis the longest lag of the shard's rooms
   * @param rooms the rooms behind, most behind first, at most {@value #ROOMS}
   * @param complete true when {@code rooms} names every room behind
   */
  record ShardReport(
      int shard,
      String instance,
      long at,
      boolean reachable,
      long behind,
      long lagMaxMillis,
      List<RoomLag> rooms,
      boolean complete) {
    ShardReport {
      Objects.requireNonNull(instance, "instance");
      rooms = List.copyOf(rooms);
      if (shard < 0 || behind < 0 || lagMaxMillis < 0 || rooms.size() > ROOMS) {
        throw new IllegalArgumentException(
            "shard, behind, lagMaxMillis, rooms: got "
                + shard
                + ", "
                + behind
                + ", "
                + lagMaxMillis
                + ", "
                + rooms.size()
                + ", want >= 0 and at most "
                + ROOMS
                + " rooms");
      }
      for (RoomLag r : rooms) {
        if (r.shard() != shard) {
          throw new IllegalArgumentException(
              "room " + r.room() + ": got shard " + r.shard() + ", want " + shard);
        }
      }
    }
  }

  /**
   * What the admin API shows: the sums over the shards that reported, and per room its lag (rooms
   * of a shard without a report have none).
   */
  public static final class View {
    private final KafkaRelayConfig config;
    private final RelayLag summary;
    private final Map<String, RoomSummary.Relay> rooms;
    private final Set<Integer> complete;

    View(
        KafkaRelayConfig config,
        RelayLag summary,
        Map<String, RoomSummary.Relay> rooms,
        Set<Integer> complete) {
      this.config = config;
      this.summary = summary;
      this.rooms = Map.copyOf(rooms);
      this.complete = Set.copyOf(complete);
    }

    /** The sums over the shards that reported. */
    public RelayLag summary() {
      return summary;
    }

    /**
     * The lag of {@code room}: its own when its shard reported it, 0 when its shard reported every
     * room behind and not this one, null when its shard has no report or named only the rooms most
     * behind.
     */
    public RoomSummary.Relay room(String room) {
      RoomSummary.Relay r = rooms.get(room);
      if (r != null) {
        return r;
      }
      return complete.contains(config.shardOf(room)) ? new RoomSummary.Relay(0, 0) : null;
    }
  }

  private final Supplier<RedisClusterCommands<String, String>> redis;
  private final KafkaRelayConfig config;

  RelayReports(Supplier<RedisClusterCommands<String, String>> redis, KafkaRelayConfig config) {
    this.redis = redis;
    this.config = config;
  }

  /**
   * What any instance reads of the relay of {@code config}: the reports in {@code redis} as of
   * {@code clock}'s time at each call; a call throws when Redis cannot be reached.
   */
  public static Supplier<View> reader(
      Supplier<RedisClusterCommands<String, String>> redis, KafkaRelayConfig config, Clock clock) {
    RelayReports r = new RelayReports(redis, config);
    return () -> r.read(clock.millis());
  }

  /** Writes the reports of the shards this instance runs (one command). */
  void write(List<ShardReport> reports) {
    if (reports.isEmpty()) {
      return;
    }
    Map<String, String> fields = new HashMap<>();
    for (ShardReport r : reports) {
      try {
        fields.put(Integer.toString(r.shard()), JSON.writeValueAsString(r));
      } catch (JsonProcessingException e) {
        throw new IllegalStateException("cannot serialise the report of shard " + r.shard(), e);
      }
    }
    redis.get().hset(config.lagKey(), fields);
  }

  /**
   * Reads every shard's report and sums those written within the lease before {@code nowMillis}.
   *
   * @throws RuntimeException when Redis cannot be reached
   */
  View read(long nowMillis) {
    return view(config, redis.get().hgetall(config.lagKey()), nowMillis);
  }

  /** The view of the relay of {@code config} whose reports hash holds {@code all}. */
  static View view(KafkaRelayConfig config, Map<String, String> all, long nowMillis) {
    Map<Integer, ShardReport> fresh = new HashMap<>();
    for (Map.Entry<String, String> e : all.entrySet()) {
      ShardReport r = parse(e.getKey(), e.getValue(), config.shards());
      if (r != null && nowMillis - r.at() <= config.lease().toMillis()) {
        fresh.put(r.shard(), r);
      }
    }
    long behind = 0;
    long lagMax = 0;
    boolean reachable = true;
    Map<String, RoomSummary.Relay> rooms = new HashMap<>();
    for (ShardReport r : fresh.values()) {
      behind += r.behind();
      lagMax = Math.max(lagMax, r.lagMaxMillis());
      reachable &= r.reachable();
      for (RoomLag l : r.rooms()) {
        if (config.shardOf(l.room()) == r.shard()) {
          rooms.put(l.room(), new RoomSummary.Relay(l.records(), l.millis()));
        }
      }
    }
    Set<Integer> complete = new HashSet<>();
    for (ShardReport r : fresh.values()) {
      if (r.complete()) {
        complete.add(r.shard());
      }
    }
    return new View(
        config,
        new RelayLag(config.topic(), config.shards(), fresh.size(), reachable, behind, lagMax),
        rooms,
        complete);
  }

  /**
   * A field of the reports hash as a report, or null when it is not one of a shard of {@code
   * shards} (a field that is not the shard's number, bad or oversized JSON, broken preconditions).
   */
  static ShardReport parse(String field, String value, int shards) {
    if (value == null || value.length() > MAX_REPORT_CHARS) {
      return null;
    }
    try {
      ShardReport r = JSON.readValue(value, ShardReport.class);
      return r.shard() < shards && Integer.toString(r.shard()).equals(field) ? r : null;
    } catch (JsonProcessingException | RuntimeException e) {
      log.debug("kafka relay reports: skipping field {}: {}", field, e.toString());
      return null;
    }
  }
}
