package dev.danmakuledger.server.storage;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.danmakuledger.server.storage.migration.Migrations;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The SQL database of the sync server (docs/architecture.md §6): a HikariCP pool over H2 (embedded,
 * MySQL mode) or MariaDB/MySQL, migrated by Flyway with the same scripts on every backend ({@link
 * Migrations}).
 */
public final class Database implements AutoCloseable {
  static final String MYSQL_TABLE_OPTIONS =
      " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin";

  private final HikariDataSource pool;
  private final String url;

  private Database(HikariDataSource pool, String url) {
    this.pool = pool;
    this.url = url;
  }

  /**
   * The JDBC URL of the embedded H2 file database under {@code dataDir}. {@code WRITE_DELAY=0}
   * writes every commit out before the commit returns: H2's default delays it up to 500 ms, so a
   * killed server could lose batches it had already acknowledged.
   */
  public static String h2Url(Path dataDir) {
    return "jdbc:h2:file:"
        + dataDir.toAbsolutePath().resolve("db").resolve("ledger")
        + ";MODE=MySQL;DATABASE_TO_LOWER=TRUE;DB_CLOSE_ON_EXIT=FALSE;WRITE_DELAY=0";
  }

  /**
   * How long a request waits for a connection before it is refused as a database outage (503): a
   * short wait, so an outage answers quickly.
   */
  static final long CONNECTION_TIMEOUT_MS = 3_000;

  /**
   * How long opening waits for its first connections: opening a file database, or migrating, on a
   * busy host can take longer than a request may wait.
   */
  static final long OPEN_TIMEOUT_MS = 15_000;

  /**
   * Opens a pool and migrates the schema.
   *
   * @param url a {@code jdbc:h2:}, {@code jdbc:mariadb:} or {@code jdbc:mysql:} URL
   * @param user user name, or null when the URL carries it
   * @param password password, or null
   * @throws StorageUnavailableException when the database cannot be reached or migrated
   */
  public static Database open(String url, String user, String password) {
    Objects.requireNonNull(url, "url");
    HikariConfig cfg = new HikariConfig();
    cfg.setJdbcUrl(tuned(url));
    if (user != null) {
      cfg.setUsername(user);
    }
    if (password != null) {
      cfg.setPassword(password);
    }
    cfg.setPoolName("ledger-sql");
    cfg.setMaximumPoolSize(16);
    cfg.setConnectionTimeout(OPEN_TIMEOUT_MS);
    cfg.setValidationTimeout(1_000);
    cfg.setAutoCommit(true);
    cfg.setInitializationFailTimeout(-1);
    HikariDataSource pool = new HikariDataSource(cfg);
    try {
      Migrations.migrate(pool, isH2(url) ? "" : MYSQL_TABLE_OPTIONS);
      pool.getHikariConfigMXBean().setConnectionTimeout(CONNECTION_TIMEOUT_MS);
    } catch (RuntimeException | SQLException e) {
      pool.close();
      throw new StorageUnavailableException("cannot migrate " + redact(url) + ": " + e, e);
    }
    return new Database(pool, url);
  }

  /** Adds the driver options that make batched ingest fast and text round-trip exactly. */
  static String tuned(String url) {
    if (url.startsWith("jdbc:mariadb:")) {
      return withOption(
          withOption(url, "useBulkStmts", "true"), "rewriteBatchedStatements", "true");
    }
    if (url.startsWith("jdbc:mysql:")) {
      return withOption(
          withOption(url, "rewriteBatchedStatements", "true"), "characterEncoding", "UTF-8");
    }
    return url;
  }

  private static String withOption(String url, String key, String value) {
    if (url.contains(key + "=")) {
      return url;
    }
    return url + (url.contains("?") ? "&" : "?") + key + "=" + value;
  }

  static boolean isH2(String url) {
    return url.startsWith("jdbc:h2:");
  }

  /** The URL without credentials, for logs and startup messages. */
  public static String redact(String url) {
    return url.replaceAll("(?i)(password=)[^&;]*", "$1***");
  }

  public DataSource dataSource() {
    return pool;
  }

  /** The URL with credentials redacted. */
  public String describe() {
    return redact(url);
  }

  /** True when a connection can be obtained and validated within a second. */
  public boolean isReachable() {
    try (Connection c = pool.getConnection()) {
      return c.isValid(1);
    } catch (SQLException | RuntimeException e) {
      return false;
    }
  }

  @Override
  public void close() {
    pool.close();
  }
}
