package dev.danmakuledger.demo;

import dev.danmakuledger.demo.harness.EdgeNode;
import dev.danmakuledger.demo.harness.LedgerReader;
import dev.danmakuledger.demo.harness.LegacyDevice;
import dev.danmakuledger.demo.harness.RedisWipe;
import dev.danmakuledger.edge.sync.SyncClient;
import dev.danmakuledger.edge.sync.SyncReport;
import dev.danmakuledger.edge.sync.SyncSettings;
import dev.danmakuledger.merkle.checkpoint.NoteVerifier;
import dev.danmakuledger.server.ServerConfig;
import dev.danmakuledger.server.SyncServer;
import dev.danmakuledger.server.redis.EmbeddedRedis;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import okhttp3.OkHttpClient;

/**
 * The system the demo runs in this JVM (docs/demo.md, "What it does", steps 1 and 2): a sync server
 * on an H2 file database and a Redis the demo owns (so it may wipe it), the three edge agents and
 * the legacy device, all talking over real sockets. It knows nothing of the story told with it.
 */
final class DemoCluster implements AutoCloseable {
  private final Path work;
  private final Clock clock;
  private final OkHttpClient http = SyncClient.defaultHttp();
  private final Map<String, EdgeNode> agents = new LinkedHashMap<>();
  private EmbeddedRedis redis;
  private SyncServer server;
  private String url;
  private NoteVerifier serverKey;
  private LedgerReader reader;
  private LegacyDevice legacy;
  private boolean closed;

  DemoCluster(Path work, Clock clock) {
    this.work = work;
    this.clock = clock;
  }

  /** Starts Redis and the sync server (which bans {@link DemoPlan#BANNED}). */
  synchronized void start() throws IOException {
    if (closed || server != null) {
      throw new IllegalStateException("start: got a cluster already started or closed, want new");
    }
    redis = EmbeddedRedis.start();
    server =
        SyncServer.start(
            ServerConfig.builder(serverDir())
                .redisUri(redis.uri())
                .bannedWords(List.of(DemoPlan.BANNED))
                .build());
    url = server.baseUri().toString();
    serverKey = NoteVerifier.parse(server.serverVerifierKey());
    reader = new LedgerReader(http, url, token("admin.token"));
  }

  /** Creates the agents and the legacy device and enrols them with the enrolment token. */
  void enrollAll() throws IOException {
    String token = token("enroll.token");
    for (String id : DemoPlan.AGENTS) {
      EdgeNode node = EdgeNode.init(work.resolve("agents").resolve(id), id, clock);
      synchronized (this) {
        agents.put(id, node);
      }
      node.enroll(http, url, token, clock);
    }
    legacy = new LegacyDevice(DemoPlan.LEGACY, new SyncClient(http, url, clock));
    legacy.enroll(token);
  }

  Path serverDir() {
    return work.resolve("server");
  }

  Path work() {
    return work;
  }

  Clock clock() {
    return clock;
  }

  /** The base URL of the running server. */
  String url() {
    return url;
  }

  /** The admin token file of the running server. */
  Path adminTokenFile() {
    return serverDir().resolve("admin.token");
  }

  String redisUri() {
    return redis.uri();
  }

  OkHttpClient http() {
    return http;
  }

  NoteVerifier serverKey() {
    return serverKey;
  }

  LedgerReader reader() {
    return reader;
  }

  LegacyDevice legacy() {
    return legacy;
  }

  synchronized EdgeNode agent(String id) {
    EdgeNode node = agents.get(id);
    if (node == null) {
      throw new IllegalArgumentException("agent: got " + id + ", want one of " + agents.keySet());
    }
    return node;
  }

  /** The running agents, in {@link DemoPlan#AGENTS} order. */
  synchronized List<EdgeNode> agents() {
    return new ArrayList<>(agents.values());
  }

  /** Syncs agent {@code id} through {@code via} (the server, or a proxy in front of it). */
  SyncReport sync(String id, String via, SyncSettings settings)
      throws IOException, InterruptedException {
    return sync(agent(id), via, settings);
  }

  SyncReport sync(EdgeNode node, String via, SyncSettings settings)
      throws IOException, InterruptedException {
    return node.syncer(http, via, serverKey, settings, clock).sync();
  }

  /** Stops agent {@code id} (its data stays) and returns its data directory. */
  Path stopAgent(String id) throws IOException {
    EdgeNode node;
    synchronized (this) {
      node = agents.remove(id);
    }
    if (node == null) {
      throw new IllegalArgumentException("stopAgent: got " + id + ", want a running agent");
    }
    Path dir = node.dir();
    node.close();
    return dir;
  }

  /** Starts agent {@code id} again on its data directory. */
  EdgeNode restartAgent(String id, Path dir) throws IOException {
    EdgeNode node = EdgeNode.open(dir, clock);
    synchronized (this) {
      agents.put(id, node);
    }
    return node;
  }

  /** Redis loses everything: every dedupe key and room counter. */
  void wipeRedis() {
    RedisWipe.flushAll(redis.uri());
  }

  private String token(String file) throws IOException {
    return Files.readString(serverDir().resolve(file), StandardCharsets.UTF_8).strip();
  }

  /** Stops the agents, the server and Redis; safe to call twice and from a shutdown hook. */
  @Override
  public synchronized void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    IOException failure = null;
    for (EdgeNode n : agents.values()) {
      try {
        n.close();
      } catch (IOException e) {
        failure = e;
      }
    }
    if (server != null) {
      server.close();
    }
    if (redis != null) {
      redis.close();
    }
    http.dispatcher().executorService().shutdown();
    http.connectionPool().evictAll();
    if (failure != null) {
      throw failure;
    }
  }
}
