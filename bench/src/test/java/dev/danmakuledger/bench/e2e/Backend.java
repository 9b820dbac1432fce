package dev.danmakuledger.bench.e2e;

import java.util.ArrayList;
import java.util.List;

/**
 * Where an end-to-end run keeps its data. Always the embedded defaults (a Redis the test starts and
 * owns, H2 under a temp directory); with {@code DANMAKU_TEST_JDBC_URL} also MariaDB/MySQL (a fresh
 * database per run, dropped afterwards); with {@code DANMAKU_TEST_REDIS_URL} also that shared Redis
 * (never flushed: runs use unique device ids and rooms).
 *
 * @param name shown in the test name
 * @param sharedRedis a shared Redis URI, or null for a Redis the test owns
 * @param jdbcUrl a MariaDB/MySQL URL whose database part is replaced per run, or null for H2
 */
record Backend(String name, String sharedRedis, String jdbcUrl) {
  static final String REDIS_ENV = "DANMAKU_TEST_REDIS_URL";
  static final String JDBC_ENV = "DANMAKU_TEST_JDBC_URL";

  boolean ownsRedis() {
    return sharedRedis == null;
  }

  @Override
  public String toString() {
    return name;
  }

  /** Every configured backend. */
  static List<Backend> all() {
    List<Backend> out = new ArrayList<>(withOwnRedis());
    String redis = System.getenv(REDIS_ENV);
    if (redis != null && !redis.isBlank()) {
      out.add(new Backend("shared Redis + H2", redis, null));
    }
    return out;
  }

  /** Backends whose Redis the test owns, so it may FLUSHALL it. */
  static List<Backend> withOwnRedis() {
    List<Backend> out = new ArrayList<>();
    out.add(new Backend("embedded Redis + H2", null, null));
    String jdbc = System.getenv(JDBC_ENV);
    if (jdbc != null && !jdbc.isBlank()) {
      out.add(new Backend("embedded Redis + MariaDB", null, jdbc));
    }
    return out;
  }
}
