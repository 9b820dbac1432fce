package dev.danmakuledger.server;

import dev.danmakuledger.server.events.StreamLimits;
import dev.danmakuledger.server.http.HttpLimits;
import dev.danmakuledger.server.kafka.KafkaRelayConfig;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Everything a {@link SyncServer} needs to start (docs/architecture.md §6). Null service locations
 * mean the embedded defaults: an embedded Redis on a free loopback port and an H2 file database in
 * MySQL mode under {@code dataDir}.
 *
 * @param dataDir directory for tokens, the server key and the embedded H2 database
 * @param bind interface the HTTP listener binds to
 * @param port HTTP port, 0 for a free port
 * @param redisUri standalone Redis URI, or null
 * @param redisClusterSeeds Redis Cluster seed URIs, or empty
 * @param jdbcUrl JDBC URL of MariaDB/MySQL/H2, or null for the embedded H2 file
 * @param jdbcUser JDBC user, or null
 * @param jdbcPassword JDBC password, or null
 * @param maxBodyBytes largest accepted request body
 * @param maxRecordsPerBatch most records accepted in one batch
 * @param bannedWords case-insensitive words whose presence rejects a message
 * @param reviewRule messages whose text matches this pattern are held for review (PENDING); null
 *     holds nothing
 * @param dedupeTtl how long Redis remembers an idempotency key at least (at most twice as long:
 *     docs/lua-scripts.md, "admit")
 * @param offlineAfter a device not heard from for longer than this is OFFLINE in the admin view
 * @param stuckAfter a device that keeps syncing while its oldest unsynced capture stays put and is
 *     older than this raises one STUCK alert per episode (docs/sync-server.md, "Stuck devices")
 * @param gapSealAfter a room number that is still neither a message nor a tombstone this long after
 *     a higher number was stored is sealed as a tombstone (docs/architecture.md §5, gap sealer)
 * @param attemptWindow the window of the unauthenticated-attempt limits and of bad-signature
 *     alerts: at most one alert per device per window
 * @param maxBadSignaturesPerDevice checkpoints failing verification that are recorded for one
 *     device per window; more are answered 429 and not recorded
 * @param maxFailuresPerAddress failed authentications (bad signature, unknown device) one client
 *     address may make per window; after that its batches are answered 429 until the window ends
 * @param roomLog whether this instance integrates and publishes the room logs (docs/room-log.md);
 *     the log endpoints are served either way
 * @param roomCheckpointInterval a room's checkpoint is signed at most this often
 * @param serverName the name in the server's key names, {@code danmaku-ledger/server-log/<name>}
 *     and {@code danmaku-ledger/server/<name>}, {@code [A-Za-z0-9._-]{1,64}}; used only when the
 *     keys are created
 * @param streamLimits room-stream limits: per-subscriber buffer, SQL poll interval, Redis Stream
 *     length (docs/sync-server.md, "Room streams")
 * @param httpLimits admission limits of the HTTP listener: request bodies at once (per instance and
 *     per address), minimum body rate, idle timeout, header size, threads (docs/operations.md,
 *     "Admission limits")
 * @param clock time source for message ids, receipts and timestamps
 * @param otlpEndpoint OTLP/HTTP collector the pipeline spans are exported to, or null to record no
 *     spans at all (docs/operations.md, "Tracing")
 * @param historyRetention how long the per-minute instance history is kept in SQL
 *     (docs/sync-server.md, "History"), one hour to {@link #MAX_HISTORY_RETENTION}
 * @param kafka the Kafka relay (docs/kafka.md), or null to relay nothing
 * @param batchWindow most batches of one device this instance holds at once, announced to agents as
 *     {@code Danmaku-Batch-Window} (docs/architecture.md §5, "Batches in flight"), 1..{@link
 *     #MAX_BATCH_WINDOW}; 1 keeps one batch per device in flight
 */
public record ServerConfig(
    Path dataDir,
    String bind,
    int port,
    String redisUri,
    List<String> redisClusterSeeds,
    String jdbcUrl,
    String jdbcUser,
    String jdbcPassword,
    long maxBodyBytes,
    int maxRecordsPerBatch,
    List<String> bannedWords,
    Pattern reviewRule,
    Duration dedupeTtl,
    Duration offlineAfter,
    Duration stuckAfter,
    Duration gapSealAfter,
    Duration attemptWindow,
    int maxBadSignaturesPerDevice,
    int maxFailuresPerAddress,
    boolean roomLog,
    Duration roomCheckpointInterval,
    String serverName,
    StreamLimits streamLimits,
    HttpLimits httpLimits,
    Clock clock,
    URI otlpEndpoint,
    Duration historyRetention,
    KafkaRelayConfig kafka,
    int batchWindow) {

  /**
   * Default largest request body: 4 MiB, enough for 1,000 records of maximal size (agents cut
   * larger batches to fit it).
   */
  public static final long DEFAULT_MAX_BODY_BYTES = 4L * 1024 * 1024;

  /**
   * Default most records per batch: a device catching up sends batches this large, which cost the
   * server less per record than smaller ones (docs/benchmarks.md, "backlog"); Redis takes each
   * room's share in script runs of at most 1,000 keys.
   */
  public static final int DEFAULT_MAX_RECORDS_PER_BATCH = 10_000;

  /** Largest configurable batch: one Redis admit call takes at most this many items. */
  public static final int MAX_RECORDS_PER_BATCH = 10_000;

  /** Default review rule: messages carrying a link wait for an operator. */
  public static final Pattern DEFAULT_REVIEW_RULE =
      Pattern.compile("(?i)(https?://|www\\.)[^\\s]+");

  /** Default time Redis remembers a key: one day. */
  public static final Duration DEFAULT_DEDUPE_TTL = Duration.ofDays(1);

  /** Default time without contact after which a device is OFFLINE: ten minutes. */
  public static final Duration DEFAULT_OFFLINE_AFTER = Duration.ofMinutes(10);

  /** Default age of a device's stuck upload queue before it is STUCK: ten minutes. */
  public static final Duration DEFAULT_STUCK_AFTER = Duration.ofMinutes(10);

  /** Default age of a hole in a room's numbering before it is sealed: 30 seconds. */
  public static final Duration DEFAULT_GAP_SEAL_AFTER = Duration.ofSeconds(30);

  /** Default window of the attempt limits and bad-signature alerts: five minutes. */
  public static final Duration DEFAULT_ATTEMPT_WINDOW = Duration.ofMinutes(5);

  /** Default recorded bad signatures per device per window. */
  public static final int DEFAULT_MAX_BAD_SIGNATURES_PER_DEVICE = 20;

  /** Default failed authentications per client address per window. */
  public static final int DEFAULT_MAX_FAILURES_PER_ADDRESS = 60;

  /** Default interval between two checkpoints of one room: one second. */
  public static final Duration DEFAULT_ROOM_CHECKPOINT_INTERVAL = Duration.ofSeconds(1);

  /** Default time the per-minute instance history is kept: one day. */
  public static final Duration DEFAULT_HISTORY_RETENTION = Duration.ofHours(24);

  /** Longest history retention: a year. */
  public static final Duration MAX_HISTORY_RETENTION = Duration.ofDays(366);

  /** Default most batches of one device held at once. */
  public static final int DEFAULT_BATCH_WINDOW = 4;

  /** Largest configurable batch window. */
  public static final int MAX_BATCH_WINDOW = 16;

  /** Default server name in the key names. */
  public static final String DEFAULT_SERVER_NAME = "local";

  public ServerConfig {
    Objects.requireNonNull(dataDir, "dataDir");
    Objects.requireNonNull(bind, "bind");
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(streamLimits, "streamLimits");
    Objects.requireNonNull(httpLimits, "httpLimits");
    Objects.requireNonNull(dedupeTtl, "dedupeTtl");
    Objects.requireNonNull(offlineAfter, "offlineAfter");
    Objects.requireNonNull(stuckAfter, "stuckAfter");
    Objects.requireNonNull(gapSealAfter, "gapSealAfter");
    Objects.requireNonNull(historyRetention, "historyRetention");
    if (historyRetention.compareTo(Duration.ofHours(1)) < 0
        || historyRetention.compareTo(MAX_HISTORY_RETENTION) > 0) {
      throw new IllegalArgumentException(
          "historyRetention: got " + historyRetention + ", want 1 hour .. 366 days");
    }
    redisClusterSeeds = List.copyOf(redisClusterSeeds == null ? List.of() : redisClusterSeeds);
    bannedWords = List.copyOf(bannedWords == null ? List.of() : bannedWords);
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port: got " + port + ", want 0..65535");
    }
    if (redisUri != null && !redisClusterSeeds.isEmpty()) {
      throw new IllegalArgumentException(
          "redis: got both a URI and cluster seeds, want at most one of them");
    }
    if (maxBodyBytes < 1024) {
      throw new IllegalArgumentException("maxBodyBytes: got " + maxBodyBytes + ", want >= 1024");
    }
    if (maxRecordsPerBatch < 1 || maxRecordsPerBatch > MAX_RECORDS_PER_BATCH) {
      throw new IllegalArgumentException(
          "maxRecordsPerBatch: got " + maxRecordsPerBatch + ", want 1.." + MAX_RECORDS_PER_BATCH);
    }
    if (dedupeTtl.isNegative() || dedupeTtl.isZero()) {
      throw new IllegalArgumentException("dedupeTtl: got " + dedupeTtl + ", want > 0");
    }
    if (stuckAfter.isNegative() || stuckAfter.isZero()) {
      throw new IllegalArgumentException("stuckAfter: got " + stuckAfter + ", want > 0");
    }
    if (offlineAfter.isNegative() || offlineAfter.isZero()) {
      throw new IllegalArgumentException("offlineAfter: got " + offlineAfter + ", want > 0");
    }
    if (gapSealAfter.isNegative() || gapSealAfter.isZero()) {
      throw new IllegalArgumentException("gapSealAfter: got " + gapSealAfter + ", want > 0");
    }
    if (otlpEndpoint != null
        && (otlpEndpoint.getHost() == null
            || !("http".equals(otlpEndpoint.getScheme())
                || "https".equals(otlpEndpoint.getScheme())))) {
      throw new IllegalArgumentException(
          "otlpEndpoint: got " + otlpEndpoint + ", want an http(s) URI such as http://host:4318");
    }
    Objects.requireNonNull(attemptWindow, "attemptWindow");
    if (attemptWindow.toSeconds() < 1) {
      throw new IllegalArgumentException("attemptWindow: got " + attemptWindow + ", want >= 1s");
    }
    if (maxBadSignaturesPerDevice < 1) {
      throw new IllegalArgumentException(
          "maxBadSignaturesPerDevice: got " + maxBadSignaturesPerDevice + ", want >= 1");
    }
    if (maxFailuresPerAddress < 1) {
      throw new IllegalArgumentException(
          "maxFailuresPerAddress: got " + maxFailuresPerAddress + ", want >= 1");
    }
    Objects.requireNonNull(roomCheckpointInterval, "roomCheckpointInterval");
    if (roomCheckpointInterval.toMillis() < 1) {
      throw new IllegalArgumentException(
          "roomCheckpointInterval: got " + roomCheckpointInterval + ", want >= 1ms");
    }
    if (serverName == null || !serverName.matches("[A-Za-z0-9._-]{1,64}")) {
      throw new IllegalArgumentException(
          "serverName: got " + serverName + ", want 1 to 64 of [A-Za-z0-9._-]");
    }
    if (batchWindow < 1 || batchWindow > MAX_BATCH_WINDOW) {
      throw new IllegalArgumentException(
          "batchWindow: got " + batchWindow + ", want 1.." + MAX_BATCH_WINDOW);
    }
    for (String word : bannedWords) {
      if (word == null || word.isBlank()) {
        throw new IllegalArgumentException("bannedWords: got a blank word, want non-blank words");
      }
    }
  }

  /** True when no Redis location is configured and the server starts an embedded one. */
  public boolean embeddedRedis() {
    return redisUri == null && redisClusterSeeds.isEmpty();
  }

  /** True when no JDBC URL is configured and the server uses an H2 file under the data dir. */
  public boolean embeddedDatabase() {
    return jdbcUrl == null;
  }

  /** The defaults for a data directory: loopback, free port, embedded services. */
  public static ServerConfig defaults(Path dataDir) {
    return builder(dataDir).build();
  }

  /** A builder starting from {@link #defaults(Path)}. */
  public static Builder builder(Path dataDir) {
    return new Builder(dataDir);
  }

  /** A builder starting from this configuration. */
  public Builder toBuilder() {
    Builder b = new Builder(dataDir);
    b.bind = bind;
    b.port = port;
    b.redisUri = redisUri;
    b.redisClusterSeeds = redisClusterSeeds;
    b.jdbcUrl = jdbcUrl;
    b.jdbcUser = jdbcUser;
    b.jdbcPassword = jdbcPassword;
    b.maxBodyBytes = maxBodyBytes;
    b.maxRecordsPerBatch = maxRecordsPerBatch;
    b.bannedWords = bannedWords;
    b.reviewRule = reviewRule;
    b.dedupeTtl = dedupeTtl;
    b.offlineAfter = offlineAfter;
    b.stuckAfter = stuckAfter;
    b.gapSealAfter = gapSealAfter;
    b.attemptWindow = attemptWindow;
    b.maxBadSignaturesPerDevice = maxBadSignaturesPerDevice;
    b.maxFailuresPerAddress = maxFailuresPerAddress;
    b.roomLog = roomLog;
    b.roomCheckpointInterval = roomCheckpointInterval;
    b.serverName = serverName;
    b.streamLimits = streamLimits;
    b.httpLimits = httpLimits;
    b.clock = clock;
    b.otlpEndpoint = otlpEndpoint;
    b.historyRetention = historyRetention;
    b.kafka = kafka;
    b.batchWindow = batchWindow;
    return b;
  }

  /** Mutable builder for {@link ServerConfig}; {@link #build()} checks the preconditions. */
  public static final class Builder {
    private final Path dataDir;
    private String bind = "127.0.0.1";
    private int port = 0;
    private String redisUri;
    private List<String> redisClusterSeeds = List.of();
    private String jdbcUrl;
    private String jdbcUser;
    private String jdbcPassword;
    private long maxBodyBytes = DEFAULT_MAX_BODY_BYTES;
    private int maxRecordsPerBatch = DEFAULT_MAX_RECORDS_PER_BATCH;
    private List<String> bannedWords = List.of();
    private Pattern reviewRule = DEFAULT_REVIEW_RULE;
    private Duration dedupeTtl = DEFAULT_DEDUPE_TTL;
    private Duration offlineAfter = DEFAULT_OFFLINE_AFTER;
    private Duration stuckAfter = DEFAULT_STUCK_AFTER;
    private Duration gapSealAfter = DEFAULT_GAP_SEAL_AFTER;
    private Duration attemptWindow = DEFAULT_ATTEMPT_WINDOW;
    private int maxBadSignaturesPerDevice = DEFAULT_MAX_BAD_SIGNATURES_PER_DEVICE;
    private int maxFailuresPerAddress = DEFAULT_MAX_FAILURES_PER_ADDRESS;
    private boolean roomLog = true;
    private Duration roomCheckpointInterval = DEFAULT_ROOM_CHECKPOINT_INTERVAL;
    private String serverName = DEFAULT_SERVER_NAME;
    private StreamLimits streamLimits = StreamLimits.DEFAULTS;
    private HttpLimits httpLimits = HttpLimits.DEFAULTS;
    private Clock clock = Clock.systemUTC();
    private URI otlpEndpoint;
    private Duration historyRetention = DEFAULT_HISTORY_RETENTION;
    private KafkaRelayConfig kafka;
    private int batchWindow = DEFAULT_BATCH_WINDOW;

    private Builder(Path dataDir) {
      this.dataDir = Objects.requireNonNull(dataDir, "dataDir");
    }

    public Builder bind(String bind) {
      this.bind = bind;
      return this;
    }

    public Builder port(int port) {
      this.port = port;
      return this;
    }

    public Builder redisUri(String redisUri) {
      this.redisUri = redisUri;
      return this;
    }

    public Builder redisClusterSeeds(List<String> seeds) {
      this.redisClusterSeeds = seeds;
      return this;
    }

    public Builder jdbc(String url, String user, String password) {
      this.jdbcUrl = url;
      this.jdbcUser = user;
      this.jdbcPassword = password;
      return this;
    }

    public Builder maxBodyBytes(long maxBodyBytes) {
      this.maxBodyBytes = maxBodyBytes;
      return this;
    }

    public Builder maxRecordsPerBatch(int maxRecordsPerBatch) {
      this.maxRecordsPerBatch = maxRecordsPerBatch;
      return this;
    }

    public Builder bannedWords(List<String> bannedWords) {
      this.bannedWords = bannedWords;
      return this;
    }

    public Builder reviewRule(Pattern reviewRule) {
      this.reviewRule = reviewRule;
      return this;
    }

    public Builder dedupeTtl(Duration dedupeTtl) {
      this.dedupeTtl = dedupeTtl;
      return this;
    }

    public Builder gapSealAfter(Duration gapSealAfter) {
      this.gapSealAfter = gapSealAfter;
      return this;
    }

    public Builder offlineAfter(Duration offlineAfter) {
      this.offlineAfter = offlineAfter;
      return this;
    }

    public Builder stuckAfter(Duration stuckAfter) {
      this.stuckAfter = stuckAfter;
      return this;
    }

    public Builder attemptWindow(Duration attemptWindow) {
      this.attemptWindow = attemptWindow;
      return this;
    }

    public Builder maxBadSignaturesPerDevice(int n) {
      this.maxBadSignaturesPerDevice = n;
      return this;
    }

    public Builder maxFailuresPerAddress(int n) {
      this.maxFailuresPerAddress = n;
      return this;
    }

    public Builder roomLog(boolean on) {
      this.roomLog = on;
      return this;
    }

    public Builder roomCheckpointInterval(Duration interval) {
      this.roomCheckpointInterval = interval;
      return this;
    }

    public Builder serverName(String name) {
      this.serverName = name;
      return this;
    }

    public Builder streamLimits(StreamLimits streamLimits) {
      this.streamLimits = streamLimits;
      return this;
    }

    public Builder httpLimits(HttpLimits httpLimits) {
      this.httpLimits = httpLimits;
      return this;
    }

    public Builder clock(Clock clock) {
      this.clock = clock;
      return this;
    }

    public Builder otlpEndpoint(URI otlpEndpoint) {
      this.otlpEndpoint = otlpEndpoint;
      return this;
    }

    public Builder historyRetention(Duration retention) {
      this.historyRetention = retention;
      return this;
    }

    public Builder kafka(KafkaRelayConfig kafka) {
      this.kafka = kafka;
      return this;
    }

    public Builder batchWindow(int batchWindow) {
      this.batchWindow = batchWindow;
      return this;
    }

    public ServerConfig build() {
      return new ServerConfig(
          dataDir,
          bind,
          port,
          redisUri,
          redisClusterSeeds,
          jdbcUrl,
          jdbcUser,
          jdbcPassword,
          maxBodyBytes,
          maxRecordsPerBatch,
          bannedWords,
          reviewRule,
          dedupeTtl,
          offlineAfter,
          stuckAfter,
          gapSealAfter,
          attemptWindow,
          maxBadSignaturesPerDevice,
          maxFailuresPerAddress,
          roomLog,
          roomCheckpointInterval,
          serverName,
          streamLimits,
          httpLimits,
          clock,
          otlpEndpoint,
          historyRetention,
          kafka,
          batchWindow);
    }
  }
}
