package dev.danmakuledger.server.storage;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * A fresh MariaDB/MySQL database for one test run on the server named by {@code
 * DANMAKU_TEST_JDBC_URL} (e.g. {@code jdbc:mariadb://127.0.0.1:3306/test?user=root&password=}):
 * {@code CREATE DATABASE danmaku_it_<random>} in utf8mb4, dropped by {@link #close()}.
 */
public final class MariaDbDatabase implements AutoCloseable {
  /** The environment variable naming the server. */
  public static final String ENV = "DANMAKU_TEST_JDBC_URL";

  private final String adminUrl;
  private final String name;
  private final String url;

  private MariaDbDatabase(String adminUrl, String name, String url) {
    this.adminUrl = adminUrl;
    this.name = name;
    this.url = url;
  }

  public static boolean configured() {
    String v = System.getenv(ENV);
    return v != null && !v.isBlank();
  }

  /** Creates a fresh database on the configured server. */
  public static MariaDbDatabase create() throws SQLException {
    String adminUrl = System.getenv(ENV).strip();
    String name = "danmaku_it_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    try (Connection c = DriverManager.getConnection(adminUrl);
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + name + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
    }
    return new MariaDbDatabase(adminUrl, name, withDatabase(adminUrl, name));
  }

  /** The URL with the path's database replaced by {@code name}. */
  static String withDatabase(String url, String name) {
    int scheme = url.indexOf("://");
    int slash = url.indexOf('/', scheme + 3);
    int query = url.indexOf('?', scheme + 3);
    String hostPart = url.substring(0, slash >= 0 ? slash : (query >= 0 ? query : url.length()));
    String params = query >= 0 ? url.substring(query) : "";
    return hostPart + "/" + name + params;
  }

  public String url() {
    return url;
  }

  @Override
  public void close() throws SQLException {
    try (Connection c = DriverManager.getConnection(adminUrl);
        Statement s = c.createStatement()) {
      s.execute("DROP DATABASE IF EXISTS " + name);
    }
  }
}
