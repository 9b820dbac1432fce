package dev.danmakuledger.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.danmakuledger.lua.DedupeScripts;
import dev.danmakuledger.lua.RetryPolicy;
import dev.danmakuledger.protocol.json.Json;
import dev.danmakuledger.server.config.DataDirectory;
import dev.danmakuledger.server.events.AdminHub;
import dev.danmakuledger.server.events.RoomHub;
import dev.danmakuledger.server.http.HttpApi;
import dev.danmakuledger.server.ingest.BatchIngest;
import dev.danmakuledger.server.ingest.Enrollment;
import dev.danmakuledger.server.ingest.GapSealer;
import dev.danmakuledger.server.ingest.Review;
import dev.danmakuledger.server.ingest.SignatureFailures;
import dev.danmakuledger.server.ingest.StageObserver;
import dev.danmakuledger.server.metrics.LedgerMetrics;
import dev.danmakuledger.server.metrics.LedgerSnapshot;
import dev.danmakuledger.server.query.AdminView;
import dev.danmakuledger.server.query.LedgerQueries;
import dev.danmakuledger.server.redis.EmbeddedRedis;
import dev.danmakuledger.server.redis.MessageIds;
import dev.danmakuledger.server.redis.RoomSequencer;
import dev.danmakuledger.server.storage.ConfirmedFeed;
import dev.danmakuledger.server.storage.Database;
import dev.danmakuledger.server.storage.LedgerStore;
import dev.danmakuledger.server.storage.ReviewStore;
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

  /** Lease time of the message-id node id. */
  static final Duration NODE_LEASE = Duration.ofSeconds(60);

  private final ServerConfig config;
  private final DataDirectory dataDirectory;
  private final HttpApi http;
  private final int port;
  private final GapSealer sealer;
  private final Deque<AutoCloseable> resources;
  private final List<String> started;
  private boolean closed;

  private SyncServer(
      ServerConfig config,
      DataDirectory dataDirectory,
      HttpApi http,
      int port,
      GapSealer sealer,
      Deque<AutoCloseable> resources,
      List<String> started) {
    this.config = config;
    this.dataDirectory = dataDirectory;
    this.http = http;
    this.port = port;
    this.sealer = sealer;
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
      DataDirectory dir = DataDirectory.open(config.dataDir(), new SecureRandom());
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
      if (config.embeddedRedis()) {
        EmbeddedRedis redis = EmbeddedRedis.start(config.dataDir(), dir.redisPassword());
        resources.push(redis);
        started.add("embedded Redis " + redis.describe());
        scripts = DedupeScripts.standalone(redis.uri(), RetryPolicy.defaults());
      } else if (config.redisUri() != null) {
        scripts = DedupeScripts.standalone(config.redisUri(), RetryPolicy.defaults());
        started.add("Redis " + config.redisUri());
      } else {
        scripts = DedupeScripts.cluster(config.redisClusterSeeds(), RetryPolicy.defaults());
        started.add("Redis Cluster " + config.redisClusterSeeds());
      }
      resources.push(scripts);

      LedgerStore store = new LedgerStore(db, config.clock());
      MessageIds ids =
          MessageIds.lease(scripts, "sync-server-" + UUID.randomUUID(), NODE_LEASE, config.clock());
      resources.push(ids);
      RoomSequencer sequencer =
          new RoomSequencer(scripts, room -> store.messages().highWater(room), config.dedupeTtl());
      GapSealer sealer = new GapSealer(store, config.gapSealAfter(), config.clock());
      sealer.start(sealer.defaultPeriod());
      resources.push(sealer);
      ConfirmedFeed feed = new ConfirmedFeed(db);
      SignatureAttempts attempts = new SignatureAttempts(db);
      RoomHub rooms = new RoomHub(feed);
      AdminHub admin = new AdminHub();
      BatchIngest ingest =
          new BatchIngest(
              store,
              sequencer,
              ids,
              dir.serverSigner(),
              config.bannedWords(),
              config.reviewRule(),
              rooms,
              admin,
              config.clock());
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
                  new Enrollment(
                      store, dir.enrollToken(), dir.serverSigner(), admin, config.clock()),
                  new Review(new ReviewStore(db, config.clock()), rooms, admin, config.clock()),
                  new LedgerQueries(store),
                  new AdminView(store, attempts, config.clock(), config.offlineAfter()),
                  rooms,
                  admin,
                  metrics,
                  tracing,
                  sequencer::isReachable,
                  db::isReachable,
                  dir.adminToken(),
                  config.maxBodyBytes(),
                  config.maxRecordsPerBatch()),
              json);
      int port = http.start(config.bind(), config.port());
      started.add("HTTP on http://" + hostForUri(config.bind()) + ":" + port);
      started.add("message-id node " + ids.nodeId());
      started.add("enroll token in " + config.dataDir().resolve("enroll.token"));
      started.add("admin token in " + config.dataDir().resolve("admin.token"));
      return new SyncServer(config, dir, http, port, sealer, resources, started);
    } catch (RuntimeException e) {
      closeAll(resources, e);
      throw e;
    }
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
