package dev.danmakuledger.bench.e2e;

import dev.danmakuledger.demo.harness.LedgerReader;
import dev.danmakuledger.demo.harness.RedisWipe;
import dev.danmakuledger.edge.sync.SyncClient;
import dev.danmakuledger.merkle.checkpoint.NoteVerifier;
import dev.danmakuledger.server.ServerConfig;
import dev.danmakuledger.server.SyncServer;
import dev.danmakuledger.server.redis.EmbeddedRedis;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import okhttp3.OkHttpClient;

/**
 * A sync server started in this JVM on a {@link Backend}, reached over real sockets. Starting and
 * stopping it again on the same data directory and database is a server restart.
 */
final class Cluster implements AutoCloseable {
  static final OkHttpClient HTTP = SyncClient.defaultHttp();
  private static final Pattern JDBC =
      Pattern.compile("^(jdbc:(?:mariadb|mysql)://[^/?]+/)([^?]*)(\\?.*)?$");

  final Backend backend;
  final Path dir;
  private final EmbeddedRedis redis;
  private final String jdbcUrl;
  private final String adminUrl;
  private final String database;
  private final UnaryOperator<ServerConfig.Builder> tweak;
  private SyncServer server;

  private Cluster(
      Backend backend,
      Path dir,
      EmbeddedRedis redis,
      String jdbcUrl,
      String adminUrl,
      String database,
      UnaryOperator<ServerConfig.Builder> tweak) {
    this.backend = backend;
    this.dir = dir;
    this.redis = redis;
    this.jdbcUrl = jdbcUrl;
    this.adminUrl = adminUrl;
    this.database = database;
    this.tweak = tweak;
  }

  /** Starts Redis (if owned), a fresh database (if MariaDB) and the server. */
  static Cluster start(Backend b, Path dir, UnaryOperator<ServerConfig.Builder> tweak)
      throws SQLException {
    EmbeddedRedis redis = b.ownsRedis() ? EmbeddedRedis.start() : null;
    String jdbc = null;
    String admin = null;
    String db = null;
    if (b.jdbcUrl() != null) {
      Matcher m = JDBC.matcher(b.jdbcUrl());
      if (!m.matches()) {
        throw new IllegalArgumentException(
            Backend.JDBC_ENV + ": got " + b.jdbcUrl() + ", want jdbc:mariadb://host:port/db?...");
      }
      byte[] r = new byte[4];
      new SecureRandom().nextBytes(r);
      db = "danmaku_e2e_" + HexFormat.of().formatHex(r);
      String params = m.group(3) == null ? "" : m.group(3);
      admin = b.jdbcUrl();
      jdbc = m.group(1) + db + params;
      try (Connection c = DriverManager.getConnection(admin);
          Statement st = c.createStatement()) {
        st.executeUpdate("CREATE DATABASE " + db + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
      }
    }
    Cluster c = new Cluster(b, dir, redis, jdbc, admin, db, tweak);
    try {
      c.startServer();
    } catch (RuntimeException e) {
      c.close();
      throw e;
    }
    return c;
  }

  static Cluster start(Backend b, Path dir) throws SQLException {
    return start(b, dir, x -> x);
  }

  void startServer() {
    ServerConfig.Builder cfg =
        ServerConfig.builder(dir).redisUri(redis != null ? redis.uri() : backend.sharedRedis());
    if (jdbcUrl != null) {
      cfg.jdbc(jdbcUrl, null, null);
    }
    server = SyncServer.start(tweak.apply(cfg).build());
  }

  void stopServer() {
    server.close();
  }

  String url() {
    return server.baseUri().toString();
  }

  String enrollToken() {
    return server.enrollToken();
  }

  NoteVerifier serverKey() {
    return NoteVerifier.parse(server.serverVerifierKey());
  }

  LedgerReader reader() {
    return new LedgerReader(HTTP, url(), server.adminToken());
  }

  /** FLUSHALL on the Redis this cluster owns. */
  void flushRedis() {
    if (redis == null) {
      throw new IllegalStateException("refusing to FLUSHALL a shared Redis");
    }
    RedisWipe.flushAll(redis.uri());
  }

  @Override
  public void close() throws SQLException {
    try {
      if (server != null) {
        server.close();
      }
    } finally {
      if (redis != null) {
        redis.close();
      }
      if (database != null) {
        try (Connection c = DriverManager.getConnection(adminUrl);
            Statement st = c.createStatement()) {
          st.executeUpdate("DROP DATABASE IF EXISTS " + database);
        }
      }
    }
  }
}
