package dev.danmakuledger.bench.ingest;

import dev.danmakuledger.server.ServerConfig;
import dev.danmakuledger.server.storage.Database;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A database that exists only for one benchmark run (docs/architecture.md §6): on MariaDB/MySQL a
 * new schema {@code danmaku_bench_<run>} on the given server, dropped on {@link #close()}; without
 * a server URL the sync server's embedded H2 file under a data directory. Never touches another
 * schema.
 */
public final class FreshDatabase implements AutoCloseable {
  private static final Pattern SERVER_URL =
      Pattern.compile("(jdbc:(?:mariadb|mysql)://[^/?]+)(/[^?]*)?(\\?.*)?");

  private final String url;
  private final String adminUrl;
  private final String schema;
  private final String driverOptions;
  private final Path dataDir;

  private FreshDatabase(
      String url, String adminUrl, String schema, String driverOptions, Path dataDir) {
    this.url = url;
    this.adminUrl = adminUrl;
    this.schema = schema;
    this.driverOptions = driverOptions;
    this.dataDir = dataDir;
  }

  /**
   * Creates the run's database.
   *
   * @param serverUrl a {@code jdbc:mariadb://host:port[/db][?options]} or {@code jdbc:mysql:} URL
   *     (the database part is replaced), or null for embedded H2 under {@code dataDir}
   * @throws SQLException if the server refuses {@code CREATE DATABASE}
   */
  public static FreshDatabase create(String serverUrl, Path dataDir) throws SQLException {
    if (serverUrl == null) {
      return new FreshDatabase(Database.h2Url(dataDir), null, null, "", dataDir);
    }
    Matcher m = requireServerUrl(serverUrl);
    String options = m.group(3) == null ? "" : m.group(3);
    String schema =
        "danmaku_bench_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    String admin = m.group(1) + "/" + options;
    try (Connection c = DriverManager.getConnection(admin);
        Statement st = c.createStatement()) {
      st.executeUpdate("CREATE DATABASE " + schema + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
    }
    return new FreshDatabase(m.group(1) + "/" + schema + options, admin, schema, options, dataDir);
  }

  /**
   * Checks the form of a server URL without connecting.
   *
   * @throws IllegalArgumentException unless it is a {@code jdbc:mariadb://} or {@code
   *     jdbc:mysql://} URL with a host
   */
  public static Matcher requireServerUrl(String serverUrl) {
    Matcher m = SERVER_URL.matcher(serverUrl);
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "--jdbc: got "
              + Database.redact(serverUrl)
              + ", want jdbc:mariadb://host:port[/db][?options] or jdbc:mysql://...");
    }
    return m;
  }

  /**
   * A sync server's settings on this database and {@code redisUri}, its data (and an H2 database)
   * under {@code dataDir}, with no review rule (nothing is held for review).
   */
  ServerConfig.Builder serverOn(Path dataDir, String redisUri) {
    return ServerConfig.builder(dataDir)
        .redisUri(redisUri)
        .jdbc(embedded() ? null : url, null, null)
        .reviewRule(null);
  }

  /** The URL of the run's database. */
  public String url() {
    return url;
  }

  /** True for the embedded H2 file. */
  public boolean embedded() {
    return schema == null;
  }

  /**
   * Where the baseline {@code name} writes: the run's database, with the batched-statement options
   * the server also uses when {@code batched}; on embedded H2 a file of its own beside the server's
   * that this baseline alone opens. H2's file store has been seen to corrupt a file that was opened
   * again after another session's concurrent writes ("File corrupted while reading record ...
   * Double mark" at the next open), so no baseline opens the server's file or another's.
   */
  public String baselineUrl(String name, boolean batched) {
    if (embedded()) {
      return Database.h2Url(dataDir.resolve(name));
    }
    if (!batched) {
      return url;
    }
    String sep = driverOptions.isEmpty() ? "?" : "&";
    return url + sep + "useBulkStmts=true&rewriteBatchedStatements=true";
  }

  /** For the report: the kind of database and where (the run's schema is not named). */
  public String describe() {
    if (embedded()) {
      return "embedded H2 (MySQL mode)";
    }
    Matcher m = SERVER_URL.matcher(url);
    String server = m.matches() ? m.group(1).replaceFirst("^jdbc:(mariadb|mysql)://", "") : "?";
    return (url.startsWith("jdbc:mysql") ? "MySQL " : "MariaDB ")
        + server
        + " (fresh database per run)";
  }

  /** Drops the run's schema (no-op for H2: the data directory is deleted with the run). */
  @Override
  public void close() throws SQLException {
    if (schema == null) {
      return;
    }
    try (Connection c = DriverManager.getConnection(adminUrl);
        Statement st = c.createStatement()) {
      st.executeUpdate("DROP DATABASE IF EXISTS " + schema);
    }
  }
}
