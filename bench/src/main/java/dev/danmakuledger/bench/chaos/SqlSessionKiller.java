package dev.danmakuledger.bench.chaos;

import java.io.PrintStream;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Kills the sync servers' MariaDB sessions in the middle of a batch transaction — after Redis
 * admitted the batch and SQL took its device row and messages, before the commit
 * (docs/operations.md "Outages"). Batch transactions last milliseconds, so instead of hoping to
 * catch one the killer holds them: it takes {@code LOCK TABLES counters WRITE} (the table a batch
 * transaction writes last, see the server's {@code BatchWriter}), finds the server sessions of the
 * run's database that {@code information_schema.PROCESSLIST} shows waiting for that lock, kills
 * each with {@code KILL CONNECTION} and releases the lock. The killed transactions roll back; their
 * batches must be retried without a number or a message lost or doubled.
 */
final class SqlSessionKiller {
  /** The table a batch transaction writes last. */
  private static final String LAST_TABLE = "counters";

  private static final Pattern DATABASE = Pattern.compile("^jdbc:[a-z]+://[^/]+/([^?]+)");
  private static final String WAITING =
      "SELECT ID FROM information_schema.PROCESSLIST"
          + " WHERE DB = ? AND ID <> ? AND STATE LIKE 'Waiting for table metadata lock%'";

  private final String adminUrl;
  private final String database;
  private final PrintStream log;
  private final Map<String, Long> measures;

  /**
   * @param serverUrl the URL the servers use ({@code jdbc:mariadb://host:port/db?...}); the harness
   *     connects with the same credentials
   */
  SqlSessionKiller(String serverUrl, PrintStream log, Map<String, Long> measures) {
    Matcher m = DATABASE.matcher(serverUrl);
    if (!m.find()) {
      throw new IllegalArgumentException(
          "SQL session kill: got a URL without a database, want jdbc:mariadb://host:port/db");
    }
    this.database = m.group(1);
    this.adminUrl = serverUrl;
    this.log = log;
    this.measures = measures;
  }

  /**
   * Holds the lock for up to {@code windowMillis} until server sessions wait on it, then kills
   * them.
   *
   * @return how many sessions were killed mid-transaction (0: no batch came meanwhile)
   */
  int killMidTransaction(long windowMillis) throws SQLException, InterruptedException {
    long deadline = System.nanoTime() + windowMillis * 1_000_000;
    List<Long> waiting = new ArrayList<>();
    int killed = 0;
    try (Connection locker = DriverManager.getConnection(adminUrl);
        Connection killer = DriverManager.getConnection(adminUrl);
        Statement lock = locker.createStatement();
        PreparedStatement find = killer.prepareStatement(WAITING);
        Statement kill = killer.createStatement()) {
      long lockerId = sessionId(locker);
      lock.execute("LOCK TABLES " + LAST_TABLE + " WRITE");
      try {
        find.setString(1, database);
        find.setLong(2, lockerId);
        while (waiting.isEmpty() && System.nanoTime() < deadline) {
          Thread.sleep(100);
          try (ResultSet rs = find.executeQuery()) {
            while (rs.next()) {
              waiting.add(rs.getLong(1));
            }
          }
        }
        for (long id : waiting) {
          try {
            kill.execute("KILL CONNECTION " + id);
            killed++;
          } catch (SQLException gone) {
            // the session ended meanwhile: not killed by us
          }
        }
      } finally {
        lock.execute("UNLOCK TABLES");
      }
    }
    log.println(
        killed > 0
            ? "chaos: KILL CONNECTION of " + killed + " server session(s) mid-transaction"
            : "chaos: no server session waited mid-transaction within " + windowMillis + " ms");
    measures.merge("SQL sessions killed mid-transaction", (long) killed, Long::sum);
    return killed;
  }

  private static long sessionId(Connection c) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT CONNECTION_ID()")) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
