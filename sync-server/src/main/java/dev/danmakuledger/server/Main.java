package dev.danmakuledger.server;

import dev.danmakuledger.server.events.StreamLimits;
import dev.danmakuledger.server.http.HttpLimits;
import dev.danmakuledger.server.kafka.KafkaRelayConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bin/sync-server}: parses flags into a {@link ServerConfig}, starts a {@link SyncServer},
 * prints what it started and where, and on SIGTERM/SIGINT drains in-flight batches and exits 0.
 */
@Command(
    name = "sync-server",
    mixinStandardHelpOptions = true,
    description =
        "Danmaku Ledger sync server: verifies device logs, dedupes and numbers messages.%n"
            + "Without --redis/--jdbc it runs an embedded Redis and an H2 file database.")
public final class Main implements Callable<Integer> {
  @Option(names = "--data-dir", required = true, description = "data directory (tokens, key, H2)")
  Path dataDir;

  @Option(
      names = "--port",
      defaultValue = "8080",
      description = "HTTP port, 0 = free port (default ${DEFAULT-VALUE})")
  int port;

  @Option(
      names = "--bind",
      defaultValue = "127.0.0.1",
      description = "listen address (default ${DEFAULT-VALUE})")
  String bind;

  @Option(names = "--redis", description = "Redis URI, for example%n  redis://127.0.0.1:6379")
  String redis;

  @Option(
      names = "--redis-cluster",
      split = ",",
      description = "Redis Cluster seed URIs, comma-separated")
  List<String> redisCluster;

  @Option(
      names = "--jdbc",
      description = "JDBC URL, for example%n  jdbc:mariadb://127.0.0.1:3306/danmaku")
  String jdbc;

  @Option(names = "--jdbc-user", description = "JDBC user")
  String jdbcUser;

  @Option(names = "--jdbc-password-file", description = "file holding the JDBC password")
  Path jdbcPasswordFile;

  @Option(names = "--banned-words", description = "file with one banned word per line")
  Path bannedWords;

  @Option(
      names = "--review-pattern",
      description = "regex: matching messages are held for review (default: links)")
  String reviewPattern;

  @Option(names = "--no-review", description = "hold nothing for review")
  boolean noReview;

  @Option(
      names = "--max-body-bytes",
      description =
          "largest request body in bytes, as sent and, for a gzip body, once decoded (default "
              + ServerConfig.DEFAULT_MAX_BODY_BYTES
              + ")")
  Long maxBodyBytes;

  @Option(
      names = "--max-records",
      description =
          "most records per batch (default " + ServerConfig.DEFAULT_MAX_RECORDS_PER_BATCH + ")")
  Integer maxRecords;

  @Option(
      names = "--offline-after-seconds",
      description = "a device not heard from for longer is OFFLINE (default 600)")
  Long offlineAfterSeconds;

  @Option(
      names = "--stuck-after",
      paramLabel = "DURATION",
      description =
          "a device that keeps syncing while its oldest unsynced capture stays put and is older"
              + " raises one STUCK alert (ISO-8601, default PT10M)")
  Duration stuckAfter;

  @Option(
      names = "--otlp-endpoint",
      description =
          "OTLP/HTTP collector to export pipeline spans to (default: no spans are recorded), for"
              + " example%n  http://127.0.0.1:4318")
  java.net.URI otlpEndpoint;

  @Option(
      names = "--kafka",
      paramLabel = "BOOTSTRAP",
      description =
          "relay every confirmed message to Kafka at host:port[,host:port...], exactly once per"
              + " room in order (docs/kafka.md; default: no relay)")
  String kafka;

  @Option(names = "--kafka-topic", description = "the relay's topic (default danmaku.confirmed)")
  String kafkaTopic;

  @Option(
      names = "--kafka-shards",
      description =
          "relay shards, one transactional producer each; the same on every instance"
              + " (default 4)")
  Integer kafkaShards;

  @Option(
      names = "--history-retention-hours",
      description = "hours the per-minute instance history is kept in SQL (default 24, min 1)")
  Long historyRetentionHours;

  @Option(
      names = "--gap-seal-after",
      description =
          "seconds after which an unused room number below a stored one becomes a tombstone"
              + " (default 30)")
  Long gapSealAfterSeconds;

  @Option(
      names = "--attempt-window-seconds",
      description =
          "window of the failed-authentication limits; one bad-signature alert per device per"
              + " window (default 300)")
  Long attemptWindowSeconds;

  @Option(
      names = "--max-bad-signatures-per-device",
      description = "bad signatures recorded per device per window; more get 429 (default 20)")
  Integer maxBadSignaturesPerDevice;

  @Option(
      names = "--max-failures-per-address",
      description =
          "failed authentications per client address per window before its batches get 429"
              + " (default 60)")
  Integer maxFailuresPerAddress;

  @Option(
      names = "--room-log",
      description =
          "on: this instance integrates and publishes the room logs; off: it only serves them"
              + " (default on)")
  String roomLog;

  @Option(
      names = "--room-checkpoint-interval",
      description = "milliseconds between two signed checkpoints of one room (default 1000)")
  Long roomCheckpointIntervalMillis;

  @Option(
      names = "--server-name",
      description =
          "name in the server's log and cosigner key names, used when the keys are created"
              + " (default local)")
  String serverName;

  @Option(
      names = "--stream-buffer",
      description =
          "messages queued per room-stream subscriber before it is cut off with its resume point"
              + " (default 2000)")
  Integer streamBuffer;

  @Option(
      names = "--stream-poll-ms",
      description =
          "longest wait between SQL reads of a subscribed room, whatever Redis does (default"
              + " 1000)")
  Long streamPollMs;

  @Option(
      names = "--stream-length",
      description =
          "approximate MAXLEN of each Redis Stream carrying room announcements (default 10000)")
  Long streamLength;

  @Option(
      names = "--max-bodies",
      description =
          "request bodies read at once on this instance; more get 503 overloaded (default 16)")
  Integer maxBodies;

  @Option(
      names = "--max-bodies-per-address",
      description = "request bodies read at once from one client address; more get 429 (default 8)")
  Integer maxBodiesPerAddress;

  @Option(
      names = "--min-body-rate",
      description =
          "slowest accepted request body in bytes per second; slower ones get 408, 0 turns the"
              + " check off (default 1024)")
  Long minBodyRate;

  @Option(
      names = "--idle-timeout-ms",
      description =
          "longest silence on a connection, also mid-request; keep above the 15 s stream"
              + " heartbeat (default 30000)")
  Long idleTimeoutMs;

  @Option(
      names = "--max-header-bytes",
      description = "largest request line plus headers; larger get 431 (default 8192)")
  Integer maxHeaderBytes;

  @Option(
      names = "--max-threads",
      description =
          "HTTP request threads, at least --max-bodies + 24; no request holds one while its batch"
              + " waits for a commit (default 40)")
  Integer maxThreads;

  @Option(
      names = "--max-streams",
      description =
          "room-stream subscribers this instance admits; more get 503 (default "
              + StreamLimits.PER_INSTANCE
              + ")")
  Integer maxStreams;

  @Option(
      names = "--max-streams-per-room",
      description =
          "room-stream subscribers of one room this instance admits; more get 503 (default "
              + StreamLimits.PER_ROOM
              + ")")
  Integer maxStreamsPerRoom;

  @Option(
      names = "--max-streams-per-address",
      description =
          "room-stream subscribers from one client address this instance admits; more get 429"
              + " (default "
              + StreamLimits.PER_ADDRESS
              + ")")
  Integer maxStreamsPerAddress;

  @Option(
      names = "--stream-writers",
      description =
          "threads writing to room-stream subscribers (default " + StreamLimits.WRITERS + ")")
  Integer streamWriters;

  @Option(
      names = "--stream-shards",
      description =
          "Redis Streams carrying room announcements; each instance reads each on a connection"
              + " and a thread of its own (default "
              + StreamLimits.SHARDS
              + ")")
  Integer streamShards;

  @Option(
      names = "--batch-window",
      paramLabel = "N",
      description =
          "most batches of one device this instance holds at once, announced to agents in the"
              + " Danmaku-Batch-Window header; 1 keeps one in flight (1.."
              + ServerConfig.MAX_BATCH_WINDOW
              + ", default "
              + ServerConfig.DEFAULT_BATCH_WINDOW
              + ")")
  Integer batchWindow;

  private final PrintStream out;
  private final PrintStream err;
  private final CountDownLatch stopped = new CountDownLatch(1);

  Main(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  public static void main(String[] args) {
    CommandLine cli = new CommandLine(new Main(System.out, System.err));
    int code = cli.execute(args);
    if (code != 0) {
      System.exit(code);
    }
  }

  ServerConfig config() throws IOException {
    if (redis != null && redisCluster != null && !redisCluster.isEmpty()) {
      throw new CommandLine.ParameterException(
          new CommandLine(this), "--redis and --redis-cluster: give at most one");
    }
    ServerConfig.Builder b = ServerConfig.builder(dataDir).bind(bind).port(port).redisUri(redis);
    if (redisCluster != null) {
      b.redisClusterSeeds(redisCluster);
    }
    String password =
        jdbcPasswordFile == null
            ? null
            : Files.readString(jdbcPasswordFile, StandardCharsets.UTF_8).strip();
    b.jdbc(jdbc, jdbcUser, password);
    if (bannedWords != null) {
      b.bannedWords(
          Files.readAllLines(bannedWords, StandardCharsets.UTF_8).stream()
              .map(String::strip)
              .filter(w -> !w.isEmpty() && !w.startsWith("#"))
              .toList());
    }
    if (noReview) {
      b.reviewRule(null);
    } else if (reviewPattern != null) {
      try {
        b.reviewRule(Pattern.compile(reviewPattern));
      } catch (PatternSyntaxException e) {
        throw new CommandLine.ParameterException(
            new CommandLine(this), "--review-pattern: " + e.getDescription());
      }
    }
    if (maxBodyBytes != null) {
      b.maxBodyBytes(maxBodyBytes);
    }
    if (maxRecords != null) {
      b.maxRecordsPerBatch(maxRecords);
    }
    if (offlineAfterSeconds != null) {
      b.offlineAfter(Duration.ofSeconds(offlineAfterSeconds));
    }
    if (stuckAfter != null) {
      b.stuckAfter(stuckAfter);
    }
    if (otlpEndpoint != null) {
      b.otlpEndpoint(otlpEndpoint);
    }
    if (kafka != null) {
      KafkaRelayConfig k =
          KafkaRelayConfig.of(
              kafka, kafkaTopic == null ? KafkaRelayConfig.DEFAULT_TOPIC : kafkaTopic);
      if (kafkaShards != null) {
        k =
            new KafkaRelayConfig(
                k.bootstrap(),
                k.topic(),
                kafkaShards,
                k.lease(),
                k.poll(),
                k.maxRecordsPerTransaction());
      }
      b.kafka(k);
    } else if (kafkaTopic != null || kafkaShards != null) {
      throw new CommandLine.ParameterException(
          new CommandLine(this), "--kafka-topic and --kafka-shards need --kafka");
    }
    if (historyRetentionHours != null) {
      long max = ServerConfig.MAX_HISTORY_RETENTION.toHours();
      if (historyRetentionHours < 1 || historyRetentionHours > max) {
        throw new IllegalArgumentException(
            "--history-retention-hours: got " + historyRetentionHours + ", want 1.." + max);
      }
      b.historyRetention(Duration.ofHours(historyRetentionHours));
    }
    if (gapSealAfterSeconds != null) {
      b.gapSealAfter(Duration.ofSeconds(gapSealAfterSeconds));
    }
    if (attemptWindowSeconds != null) {
      b.attemptWindow(Duration.ofSeconds(attemptWindowSeconds));
    }
    if (maxBadSignaturesPerDevice != null) {
      b.maxBadSignaturesPerDevice(maxBadSignaturesPerDevice);
    }
    if (maxFailuresPerAddress != null) {
      b.maxFailuresPerAddress(maxFailuresPerAddress);
    }
    if (roomLog != null) {
      switch (roomLog) {
        case "on" -> b.roomLog(true);
        case "off" -> b.roomLog(false);
        default ->
            throw new IllegalArgumentException("--room-log: got " + roomLog + ", want on or off");
      }
    }
    if (roomCheckpointIntervalMillis != null) {
      b.roomCheckpointInterval(Duration.ofMillis(roomCheckpointIntervalMillis));
    }
    if (serverName != null) {
      b.serverName(serverName);
    }
    if (batchWindow != null) {
      if (batchWindow < 1 || batchWindow > ServerConfig.MAX_BATCH_WINDOW) {
        throw new IllegalArgumentException(
            "--batch-window: got "
                + batchWindow
                + ", want 1.."
                + ServerConfig.MAX_BATCH_WINDOW
                + " (batches of one device held at once)");
      }
      b.batchWindow(batchWindow);
    }
    StreamLimits d = StreamLimits.DEFAULTS;
    b.streamLimits(
        new StreamLimits(
            streamBuffer != null ? streamBuffer : d.buffer(),
            streamPollMs != null ? Duration.ofMillis(streamPollMs) : d.poll(),
            streamLength != null ? streamLength : d.streamLength(),
            maxStreams != null ? maxStreams : d.perInstance(),
            maxStreamsPerRoom != null ? maxStreamsPerRoom : d.perRoom(),
            maxStreamsPerAddress != null ? maxStreamsPerAddress : d.perAddress(),
            streamWriters != null ? streamWriters : d.writers(),
            streamShards != null ? streamShards : d.shards()));
    b.httpLimits(httpLimits());
    return b.build();
  }

  private HttpLimits httpLimits() {
    HttpLimits d = HttpLimits.DEFAULTS;
    return new HttpLimits(
        maxBodies != null ? maxBodies : d.maxBodies(),
        maxBodiesPerAddress != null ? maxBodiesPerAddress : d.maxBodiesPerAddress(),
        minBodyRate != null ? minBodyRate : d.minBodyBytesPerSecond(),
        idleTimeoutMs != null ? Duration.ofMillis(idleTimeoutMs) : d.idleTimeout(),
        maxHeaderBytes != null ? maxHeaderBytes : d.maxHeaderBytes(),
        maxThreads != null ? maxThreads : d.maxThreads());
  }

  @Override
  public Integer call() throws Exception {
    ServerConfig config;
    try {
      config = config();
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(new CommandLine(this), e.getMessage());
    }
    SyncServer server;
    try {
      server = SyncServer.start(config);
    } catch (RuntimeException e) {
      err.println("sync-server: cannot start: " + e.getMessage());
      for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
        err.println("  caused by: " + c);
      }
      err.flush();
      return 1;
    }
    out.println("sync-server started:");
    for (String line : server.startupReport()) {
      out.println("  " + line);
    }
    out.println("  stop with Ctrl-C or SIGTERM (in-flight batches are drained)");
    out.flush();
    try {
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    out.println("sync-server stopping: draining in-flight batches");
                    server.close();
                    out.println("sync-server stopped");
                    out.flush();
                    stopped.countDown();
                    Runtime.getRuntime().halt(0);
                  },
                  "sync-server-shutdown"));
    } catch (IllegalStateException stoppedWhileStarting) {
      out.println("sync-server stopping: stopped while it started");
      server.close();
      out.println("sync-server stopped");
      out.flush();
      return 0;
    }
    stopped.await();
    return 0;
  }
}
