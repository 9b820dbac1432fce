package dev.danmakuledger.lua.testing;

import dev.danmakuledger.lua.RedisKeys;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.MapScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import redis.embedded.RedisServer;
import redis.embedded.core.RedisServerBuilder;

/**
 * A Redis server for tests (one suite on every backend): the real Redis named by {@code
 * DANMAKU_TEST_REDIS_URL} when set, else a redis-server started from the
 * com.github.codemonstur:embedded-redis jar on a free loopback port. Servers may be shared with
 * other test runs, so tests take their rooms, keys and lease groups from {@link #namespace}, which
 * is unique per fixture and call; only an embedded server this fixture started may be flushed or
 * restarted.
 */
public final class RedisFixture implements AutoCloseable {
  /** Environment variable naming an external Redis, e.g. {@code redis://127.0.0.1:6379}. */
  public static final String ENV = "DANMAKU_TEST_REDIS_URL";

  private final String uri;
  private final int port;
  private final RedisServer server;
  private final String runId = UUID.randomUUID().toString().substring(0, 8);
  private final AtomicLong counter = new AtomicLong();

  private RedisFixture(String uri, int port, RedisServer server) {
    this.uri = uri;
    this.port = port;
    this.server = server;
  }

  /** The external Redis of {@value #ENV} if set, else an embedded one. */
  public static RedisFixture start() {
    String external = System.getenv(ENV);
    if (external != null && !external.isBlank()) {
      return external(external.strip());
    }
    return embedded();
  }

  /** A Redis that the fixture does not own: never flushed or restarted by it. */
  public static RedisFixture external(String uri) {
    return new RedisFixture(uri, -1, null);
  }

  /**
   * A fresh embedded redis-server on a free loopback port, owned by this fixture, with extra
   * redis.conf lines such as {@code "lua-time-limit 100"} or {@code "replicaof 127.0.0.1 6379"}.
   */
  public static RedisFixture embedded(String... settings) {
    int port = freePort();
    RedisServer server = newServer(port, settings);
    startServer(server);
    return new RedisFixture("redis://127.0.0.1:" + port, port, server);
  }

  private static RedisServer newServer(int port, String... settings) {
    try {
      RedisServerBuilder builder =
          RedisServer.newRedisServer()
              .port(port)
              .bind("127.0.0.1")
              .setting("save \"\"")
              .setting("appendonly no")
              .onShutdownForceStop(true);
      for (String setting : settings) {
        builder.setting(setting);
      }
      return builder.build();
    } catch (IOException e) {
      throw new UncheckedIOException("configuring embedded redis on port " + port, e);
    }
  }

  private static void startServer(RedisServer server) {
    try {
      server.start();
    } catch (IOException e) {
      throw new UncheckedIOException("starting embedded redis", e);
    }
  }

  /** A loopback TCP port that was free a moment ago. */
  public static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("finding a free port", e);
    }
  }

  /** The server's URI, e.g. {@code redis://127.0.0.1:34567}. */
  public String uri() {
    return uri;
  }

  /** True if this fixture started the server (so it may flush or restart it). */
  public boolean owned() {
    return server != null;
  }

  /**
   * A name unique to this fixture and call, starting with {@code base}: use it for rooms, key
   * prefixes and lease groups so tests sharing one Redis never see each other's keys.
   */
  public String namespace(String base) {
    return base + "-" + runId + "-" + counter.incrementAndGet();
  }

  /** A raw connection to the server, for setup and assertions. */
  public static final class Raw implements AutoCloseable {
    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;

    private Raw(String uri) {
      this.client = RedisClient.create(uri);
      try {
        this.connection = client.connect(StringCodec.UTF8);
      } catch (RuntimeException e) {
        client.shutdown();
        throw e;
      }
    }

    /** Synchronous commands on this connection. */
    public RedisCommands<String, String> sync() {
      return connection.sync();
    }

    /** Asynchronous commands on this connection. */
    public RedisAsyncCommands<String, String> async() {
      return connection.async();
    }

    /**
     * {@code room}'s dedupe entries: for each window hash of its bucket (which it shares with other
     * rooms, docs/lua-scripts.md "Key layout"), the fields of the room's entries in it.
     */
    public Map<String, List<String>> dedupeEntries(String room) {
      ScanArgs windows =
          ScanArgs.Builder.matches(RedisKeys.window(room, 0).replaceFirst(":w:0$", ":w:*"));
      ScanArgs ofRoom = ScanArgs.Builder.matches(RedisKeys.field(room) + ":*");
      Map<String, List<String>> entries = new LinkedHashMap<>();
      ScanCursor keys = ScanCursor.INITIAL;
      do {
        KeyScanCursor<String> page = sync().scan(keys, windows);
        for (String window : page.getKeys()) {
          ScanCursor fields = ScanCursor.INITIAL;
          do {
            MapScanCursor<String, String> part = sync().hscan(window, fields, ofRoom);
            if (!part.getMap().isEmpty()) {
              entries
                  .computeIfAbsent(window, w -> new ArrayList<>())
                  .addAll(part.getMap().keySet());
            }
            fields = part;
          } while (!fields.isFinished());
        }
        keys = page;
      } while (!keys.isFinished());
      return entries;
    }

    /** Deletes {@code room}'s dedupe entries ({@link #dedupeEntries}), as if Redis forgot them. */
    public void forgetDedupeEntries(String room) {
      dedupeEntries(room)
          .forEach((window, fields) -> sync().hdel(window, fields.toArray(String[]::new)));
    }

    @Override
    public void close() {
      connection.close();
      client.shutdown();
    }
  }

  /** A new raw connection for setup and assertions; close it after use. */
  public Raw connect() {
    return new Raw(uri);
  }

  /**
   * FLUSHALL and SCRIPT FLUSH on the embedded server this fixture owns.
   *
   * @throws IllegalStateException if the server is external
   */
  public void flushAll() {
    requireOwned("flushAll");
    try (Raw raw = connect()) {
      RedisCommands<String, String> sync = raw.sync();
      sync.flushall();
      sync.scriptFlush();
    }
  }

  /** Stops the owned embedded server (its data and script cache are lost). */
  public void stopServer() {
    requireOwned("stopServer");
    try {
      server.stop();
    } catch (IOException e) {
      throw new UncheckedIOException("stopping embedded redis", e);
    }
  }

  /** Starts the owned embedded server again on the same port, empty. */
  public void startServer() {
    requireOwned("startServer");
    startServer(server);
  }

  /** The port of the owned embedded server. */
  public int port() {
    requireOwned("port");
    return port;
  }

  private void requireOwned(String what) {
    if (server == null) {
      throw new IllegalStateException(
          what + ": got external Redis " + uri + ", want an embedded one this fixture owns");
    }
  }

  /**
   * Deletes every key whose name contains one of this fixture's namespaces (SCAN + UNLINK), and
   * nothing else: safe on a Redis shared with other users.
   *
   * @return how many keys were deleted
   */
  public long deleteNamespaceKeys() {
    long deleted = 0;
    try (Raw raw = connect()) {
      RedisCommands<String, String> sync = raw.sync();
      ScanArgs args = ScanArgs.Builder.matches("*-" + runId + "-*").limit(1000);
      ScanCursor cursor = ScanCursor.INITIAL;
      do {
        KeyScanCursor<String> page = sync.scan(cursor, args);
        if (!page.getKeys().isEmpty()) {
          deleted += sync.unlink(page.getKeys().toArray(new String[0]));
        }
        cursor = page;
      } while (!cursor.isFinished());
    }
    return deleted;
  }

  /** Stops an owned embedded server; on an external Redis deletes this fixture's keys. */
  @Override
  public void close() {
    if (server == null) {
      deleteNamespaceKeys();
      return;
    }
    if (server.isActive()) {
      try {
        server.stop();
      } catch (IOException e) {
        throw new UncheckedIOException("stopping embedded redis", e);
      }
    }
  }

  @Override
  public String toString() {
    return (owned() ? "embedded " : "external ") + uri;
  }
}
