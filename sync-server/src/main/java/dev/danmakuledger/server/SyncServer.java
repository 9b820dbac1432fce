package dev.danmakuledger.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.danmakuledger.lua.DedupeScripts;
import dev.danmakuledger.lua.RetryPolicy;
import dev.danmakuledger.protocol.wire.Json;
import dev.danmakuledger.protocol.wire.Outcome;
import dev.danmakuledger.protocol.wire.admin.AdminEvent.Severity;
import dev.danmakuledger.server.events.AdminHub;
import dev.danmakuledger.server.events.AlertKind;
import dev.danmakuledger.server.events.DamageAlerts;
import dev.danmakuledger.server.events.Events;
import dev.danmakuledger.server.events.RedisRoomBus;
import dev.danmakuledger.server.events.RoomHub;
import dev.danmakuledger.server.http.HttpApi;
import dev.danmakuledger.server.ingest.BatchIngest;
import dev.danmakuledger.server.ingest.DeviceEnroller;
import dev.danmakuledger.server.ingest.GapSealer;
import dev.danmakuledger.server.ingest.OutcomeTally;
import dev.danmakuledger.server.ingest.QueueReports;
import dev.danmakuledger.server.ingest.Review;
import dev.danmakuledger.server.ingest.SignatureFailures;
import dev.danmakuledger.server.ingest.StageObserver;
import dev.danmakuledger.server.ingest.StageTimes;
import dev.danmakuledger.server.instances.HistorySampler;
import dev.danmakuledger.server.instances.InstanceHistory;
import dev.danmakuledger.server.instances.InstanceRegistry;
import dev.danmakuledger.server.kafka.KafkaRelay;
import dev.danmakuledger.server.kafka.RelayFeed;
import dev.danmakuledger.server.kafka.RelayReports;
import dev.danmakuledger.server.kafka.RoomLag;
import dev.danmakuledger.server.metrics.LedgerMetrics;
import dev.danmakuledger.server.metrics.LedgerSnapshot;
import dev.danmakuledger.server.query.AdminView;
import dev.danmakuledger.server.query.LedgerQueries;
import dev.danmakuledger.server.redis.EmbeddedRedis;
import dev.danmakuledger.server.redis.MessageIds;
import dev.danmakuledger.server.redis.RedisLinks;
import dev.danmakuledger.server.redis.RoomSequencer;
import dev.danmakuledger.server.roomlog.AuditBundles;
import dev.danmakuledger.server.roomlog.RoomLogIntegrator;
import dev.danmakuledger.server.roomlog.RoomLogReads;
import dev.danmakuledger.server.storage.AlertRow;
import dev.danmakuledger.server.storage.ConfirmedFeed;
import dev.danmakuledger.server.storage.Database;
import dev.danmakuledger.server.storage.DeviceSyncStates;
import dev.danmakuledger.server.storage.HistoryStore;
import dev.danmakuledger.server.storage.LedgerStore;
import dev.danmakuledger.server.storage.MinuteCounts;
import dev.danmakuledger.server.storage.ReviewStore;
import dev.danmakuledger.server.storage.RoomLogStore;
import dev.danmakuledger.server.storage.SignatureAttempts;
import dev.danmakuledger.server.tracing.Tracing;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running sync server (docs/architecture.md §2, §4–§7): wires configuration, then stores (SQL,
 * Redis), then services, then HTTP, with constructors only. Used in-JVM by tests and the demo, and
 * by {@link Main} from the command line.
 */
public final class SyncServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SyncServer.class);

  /** How long {@link #close()} waits for batches in flight. */
  public static final Duration DRAIN_GRACE = Duration.ofSeconds(20);

  /** Interval of this instance's heartbeat in the instance registry. */
  public static final Duration INSTANCE_HEARTBEAT = Duration.ofSeconds(5);

  /** Lease time of the message-id node id. */
  static final Duration NODE_LEASE = Duration.ofSeconds(60);

  private final ServerConfig config;
  private final DataDirectory dataDirectory;
  private final HttpApi http;
  private final int port;
  private final GapSealer sealer;
  private final RoomLogIntegrator integrator;
  private final StageTimes stages;
  private final HistorySampler history;
  private final KafkaRelay relay;
  private final Deque<AutoCloseable> resources;
  private final List<String> started;
  private boolean closed;

  private SyncServer(
      ServerConfig config,
      DataDirectory dataDirectory,
      HttpApi http,
      int port,
      GapSealer sealer,
      RoomLogIntegrator integrator,
      StageTimes stages,
      HistorySampler history,
      KafkaRelay relay,
      Deque<AutoCloseable> resources,
      List<String> started) {
    this.config = config;
    this.dataDirectory = dataDirectory;
    this.http = http;
    this.port = port;
    this.sealer = sealer;
    this.integrator = integrator;
    this.stages = stages;
    this.history = history;
    this.relay = relay;
    this.resources = resources;
    this.started = List.copyOf(started);
  }

  /**
   * Starts a server: data directory, database (migrated), Redis (embedded unless configured), the
   * services and the HTTP listener.
   *
   * @throws RuntimeException when a part cannot start; everything started so far is stopped
   */
  public static SyncServer start(ServerConfig config) {
    Deque<AutoCloseable> resources = new ArrayDeque<>();
    List<String> started = new ArrayList<>();
    try {
      DataDirectory dir =
          DataDirectory.open(config.dataDir(), config.serverName(), new SecureRandom());
      for (Path p : dir.created()) {
        started.add("created " + p + " (0600)");
      }

      String jdbcUrl =
          config.embeddedDatabase() ? Database.h2Url(config.dataDir()) : config.jdbcUrl();
      Database db = Database.open(jdbcUrl, config.jdbcUser(), config.jdbcPassword());
      resources.push(db);
      if (config.embeddedDatabase()) {
        dir.restrictDatabaseFiles();
      }
      started.add(
          (config.embeddedDatabase() ? "embedded H2 database " : "SQL database ") + db.describe());

      DedupeScripts scripts;
      RedisLinks links;
      if (config.embeddedRedis()) {
        EmbeddedRedis redis = EmbeddedRedis.start(config.dataDir(), dir.redisPassword());
        resources.push(redis);
        started.add("embedded Redis " + redis.describe());
        scripts = DedupeScripts.standalone(redis.uri(), RetryPolicy.defaults());
        resources.push(scripts);
        links = RedisLinks.standalone(redis.uri());
      } else if (config.redisUri() != null) {
        scripts = DedupeScripts.standalone(config.redisUri(), RetryPolicy.defaults());
        started.add("Redis " + config.redisUri());
        resources.push(scripts);
        links = RedisLinks.standalone(config.redisUri());
      } else {
        scripts = DedupeScripts.cluster(config.redisClusterSeeds(), RetryPolicy.defaults());
        started.add("Redis Cluster " + config.redisClusterSeeds());
        resources.push(scripts);
        links = RedisLinks.cluster(config.redisClusterSeeds());
      }
      resources.push(links);

      LedgerStore store = new LedgerStore(db, config.clock());
      MessageIds ids =
          MessageIds.lease(scripts, "sync-server-" + UUID.randomUUID(), NODE_LEASE, config.clock());
      resources.push(ids);
      RoomSequencer sequencer = new RoomSequencer(scripts, config.dedupeTtl());
      GapSealer sealer = new GapSealer(store, config.gapSealAfter(), config.clock());
      sealer.start(sealer.defaultPeriod());
      resources.push(sealer);
      RoomLogStore roomLogs = new RoomLogStore(db, config.clock());
      RoomLogIntegrator integrator =
          new RoomLogIntegrator(
              roomLogs, dir.logSigner(), config.roomCheckpointInterval(), config.clock());
      resources.push(integrator);
      if (config.roomLog()) {
        integrator.start();
        started.add(
            "room log integration every "
                + config.roomCheckpointInterval().toMillis()
                + " ms, log key "
                + dir.logSigner().name());
      } else {
        started.add("room log integration off (--room-log off): logs are only served");
      }
      ConfirmedFeed feed = new ConfirmedFeed(db);
      SignatureAttempts attempts = new SignatureAttempts(db);
      RoomHub rooms =
          new RoomHub(
              feed,
              new RedisRoomBus(
                  links, config.streamLimits().shards(), config.streamLimits().streamLength()),
              config.streamLimits());
      resources.push(rooms);
      AdminHub admin = new AdminHub();
      DamageAlerts damage = new DamageAlerts(store, admin, config.clock());
      integrator.reportingDamageTo(damage::report);
      BatchIngest ingest =
          new BatchIngest(
              store,
              sequencer,
              ids,
              dir.serverSigner(),
              dir.cosigner(),
              config.bannedWords(),
              config.reviewRule(),
              rooms,
              admin,
              config.batchWindow(),
              config.clock());
      resources.push(ingest);
      ingest.notingNumberedRoomsTo(sealer::admitted);
      DeviceSyncStates syncStates = new DeviceSyncStates(db);
      ingest.reportingQueuesTo(
          new QueueReports(syncStates, config.stuckAfter(), config.attemptWindow(), admin));
      if (config.roomLog()) {
        ingest.handingCommittedSlotsTo(integrator::committed);
      }
      PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
      new JvmMemoryMetrics().bindTo(registry);
      new JvmThreadMetrics().bindTo(registry);
      resources.push(registry::close);
      LedgerMetrics metrics = new LedgerMetrics(registry, () -> LedgerSnapshot.read(store));
      Tracing tracing =
          config.otlpEndpoint() == null ? Tracing.off() : Tracing.otlp(config.otlpEndpoint());
      resources.push(tracing);
      if (tracing.recording()) {
        started.add("tracing: spans exported over OTLP to " + config.otlpEndpoint());
      }
      ingest.observedBy(StageObserver.all(metrics, tracing));

      HistoryStore history = new HistoryStore(db);
      ObjectMapper json = Json.mapper();
      HttpApi http =
          new HttpApi(
              new HttpApi.Services(
                  feed,
                  ingest,
                  new SignatureFailures(
                      attempts,
                      admin,
                      config.clock(),
                      config.attemptWindow(),
                      config.maxBadSignaturesPerDevice(),
                      config.maxFailuresPerAddress()),
                  new DeviceEnroller(
                      store,
                      dir.enrollToken(),
                      dir.serverSigner(),
                      dir.cosigner().verifierKey(),
                      admin,
                      config.clock()),
                  new Review(new ReviewStore(db, config.clock()), rooms, admin, config.clock()),
                  new LedgerQueries(store),
                  new RoomLogReads(roomLogs),
                  new AuditBundles(store, roomLogs),
                  dir.logSigner().verifierKey(),
                  dir.cosigner().verifierKey(),
                  new AdminView(
                      store,
                      attempts,
                      syncStates,
                      config.clock(),
                      config.offlineAfter(),
                      config.kafka() == null
                          ? null
                          : RelayReports.reader(links::shared, config.kafka(), config.clock())),
                  new InstanceHistory(history, config.clock()),
                  rooms,
                  admin,
                  metrics,
                  tracing,
                  sequencer::isReachable,
                  db::isReachable,
                  dir.adminToken(),
                  config.maxBodyBytes(),
                  config.maxRecordsPerBatch(),
                  config.httpLimits()),
              json);
      http.reportingDamageTo(damage::report);
      int port = http.start(config.bind(), config.port());
      started.add("HTTP on http://" + hostForUri(config.bind()) + ":" + port);
      String instanceId = "i-" + UUID.randomUUID().toString().substring(0, 8);
      InstanceRegistry instances =
          new InstanceRegistry(
              links::shared,
              new InstanceRegistry.Self(
                  instanceId,
                  "http://" + hostForUri(config.bind()) + ":" + port,
                  version(),
                  config.clock().instant()),
              INSTANCE_HEARTBEAT,
              config.clock(),
              () -> batchCount(registry),
              rooms::subscribers);
      instances.start();
      resources.push(instances);
      http.instances(instances::list);
      KafkaRelay relay = null;
      if (config.kafka() != null) {
        relay =
            new KafkaRelay(
                    config.kafka(),
                    RelayFeed.of(feed),
                    links::shared,
                    instanceId,
                    message -> kafkaAlert(store, admin, config, message),
                    config.clock())
                .meteredBy(registry);
        relay.start();
        rooms.onCommitted(relay::committed);
        resources.push(relay);
        started.add(
            "Kafka relay to "
                + config.kafka().bootstrap()
                + ", topic "
                + config.kafka().topic()
                + ", "
                + config.kafka().shards()
                + " shards");
      }
      HistorySampler sampler =
          new HistorySampler(
              history,
              instanceId,
              () -> totals(ingest),
              rooms::subscribers,
              config.historyRetention(),
              config.clock());
      sampler.start(HistorySampler.DEFAULT_EVERY);
      resources.push(sampler);
      started.add(
          "per-minute history in SQL, kept "
              + config.historyRetention().toHours()
              + " h (--history-retention-hours)");
      started.add("instance " + instances.id() + " in the Redis instance registry");
      started.add("message-id node " + ids.nodeId());
      started.add("enroll token in " + config.dataDir().resolve("enroll.token"));
      started.add("admin token in " + config.dataDir().resolve("admin.token"));
      return new SyncServer(
          config,
          dir,
          http,
          port,
          sealer,
          integrator,
          ingest.stages(),
          sampler,
          relay,
          resources,
          started);
    } catch (RuntimeException e) {
      closeAll(resources, e);
      throw e;
    }
  }

  /** Raises the KAFKA_UNREACHABLE alert (docs/kafka.md, "Failures"). */
  private static void kafkaAlert(
      LedgerStore store, AdminHub admin, ServerConfig config, String message) {
    AlertRow alert =
        store.insertAlert(
            Events.alert(
                AlertKind.KAFKA_UNREACHABLE,
                Severity.WARN,
                null,
                message,
                Map.of("bootstrap", config.kafka().bootstrap(), "topic", config.kafka().topic()),
                config.clock().millis()));
    admin.publish(Events.of(alert));
  }

  private static String version() {
    String v = SyncServer.class.getPackage().getImplementationVersion();
    return v == null ? "dev" : v;
  }

  /** This instance's cumulative counts, as its per-minute history samples them. */
  private static MinuteCounts totals(BatchIngest ingest) {
    StageTimes.Snapshot st = ingest.stages().snapshot();
    OutcomeTally o = ingest.outcomes();
    return new MinuteCounts(
        st.batches(),
        o.total(),
        o.get(Outcome.CONFIRMED),
        o.get(Outcome.PENDING),
        o.get(Outcome.DUPLICATE),
        o.get(Outcome.CONFLICT),
        o.get(Outcome.REJECTED),
        0,
        st.nanos().getOrDefault(StageTimes.Stage.ADMIT, 0L) / 1000,
        st.nanos().getOrDefault(StageTimes.Stage.COMMIT, 0L) / 1000);
  }

  private static long batchCount(PrometheusMeterRegistry metrics) {
    io.micrometer.core.instrument.Timer t = metrics.find("danmaku.batch").timer();
    return t == null ? 0 : t.count();
  }

  private static String hostForUri(String bind) {
    if (bind.contains(":")) {
      return "[" + bind + "]";
    }
    return "0.0.0.0".equals(bind) ? "127.0.0.1" : bind;
  }

  private static void closeAll(Deque<AutoCloseable> resources, Exception cause) {
    while (!resources.isEmpty()) {
      try {
        resources.pop().close();
      } catch (Exception e) {
        if (cause != null) {
          cause.addSuppressed(e);
        } else {
          log.warn("closing failed: {}", e.toString());
        }
      }
    }
  }

  /** The bound HTTP port. */
  public int port() {
    return port;
  }

  /** The base URI, e.g. {@code http://127.0.0.1:8080}. */
  public URI baseUri() {
    return URI.create("http://" + hostForUri(config.bind()) + ":" + port);
  }

  public Path dataDir() {
    return dataDirectory.path();
  }

  /** The bearer token of the admin API ({@code admin.token}). */
  public String adminToken() {
    return dataDirectory.adminToken();
  }

  /** The token devices present to enroll ({@code enroll.token}). */
  public String enrollToken() {
    return dataDirectory.enrollToken();
  }

  /** The server's note verifier key: receipts carry its signature. */
  public String serverVerifierKey() {
    return dataDirectory.serverSigner().verifierKey();
  }

  /**
   * Runs the gap sealer once now (it also runs on its schedule): every hole of a room's numbering
   * older than {@code --gap-seal-after} becomes a tombstone.
   *
   * @return how many tombstones this run wrote
   */
  public int sealGapsNow() {
    return sealer.runOnce();
  }

  /**
   * Integrates every room log that is behind and publishes its checkpoint now (it also runs every
   * {@code --room-checkpoint-interval} unless {@code --room-log off}).
   *
   * @return how many entries this run appended
   */
  public long integrateNow() {
    return integrator.integrateNow();
  }

  /**
   * Writes this instance's sample of the running minute to the history now (it also does every
   * {@link HistorySampler#DEFAULT_EVERY}).
   *
   * @return true when it was written
   */
  public boolean sampleHistoryNow() {
    return history.sample();
  }

  /** The room log verifier key (type 0x01): room checkpoints carry its signature. */
  public String logVerifierKey() {
    return dataDirectory.logSigner().verifierKey();
  }

  /** The cosigner verifier key (C2SP tlog-cosignature, type 0x04): receipts carry its line. */
  public String cosignerVerifierKey() {
    return dataDirectory.cosigner().verifierKey();
  }

  /** Where the time of accepted batches went so far, per pipeline stage (docs/benchmarks.md). */
  public StageTimes.Snapshot stageTimes() {
    return stages.snapshot();
  }

  /**
   * The rooms of the Kafka relay shards this instance runs, most behind first, at most {@code
   * limit}; empty without {@code --kafka}.
   */
  public List<RoomLag> kafkaLag(int limit) {
    return relay == null ? List.of() : relay.lag(limit);
  }

  /** Messages this instance's Kafka relay committed to the topic so far (0 without one). */
  public long kafkaPublished() {
    return relay == null ? 0 : relay.published();
  }

  /** One line per part started, for the startup message. */
  public List<String> startupReport() {
    return started;
  }

  /** Stops gracefully: refuses new batches, drains those in flight, then stops everything. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      http.stop(DRAIN_GRACE);
    } finally {
      closeAll(resources, null);
    }
  }
}
