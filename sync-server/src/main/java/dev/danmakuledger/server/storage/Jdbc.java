package dev.danmakuledger.server.storage;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLIntegrityConstraintViolationException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;

/**
 * The JDBC plumbing shared by the storage classes of the review, stream and attempt tables: one
 * transaction around a body, failures mapped to {@link StorageUnavailableException} (connection
 * loss, timeouts) or {@link IllegalStateException}, and counter upserts into the sharded {@code
 * counters} table.
 */
final class Jdbc {
  /** Counter shards written by these classes; a counter's value is the sum over all shards. */
  private static final int COUNTER_SHARDS = 16;

  private Jdbc() {}

  @FunctionalInterface
  interface TxBody<T> {
    T run(Connection c) throws SQLException;
  }

  /** Runs {@code body} in one transaction; rolls back on any failure. */
  static <T> T inTransaction(DataSource ds, String what, TxBody<T> body) {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      try {
        T result = body.run(c);
        c.commit();
        return result;
      } catch (SQLException | RuntimeException e) {
        try {
          c.rollback();
        } catch (SQLException r) {
          e.addSuppressed(r);
        }
        throw e;
      } finally {
        c.setAutoCommit(true);
      }
    } catch (SQLException e) {
      throw failure(what, e);
    }
  }

  /** Runs a read on its own connection. */
  static <T> T read(DataSource ds, String what, TxBody<T> body) {
    try (Connection c = ds.getConnection()) {
      return body.run(c);
    } catch (SQLException e) {
      throw failure(what, e);
    }
  }

  static RuntimeException failure(String what, SQLException e) {
    if (isTransient(e)) {
      return new StorageUnavailableException("sql unavailable (" + what + "): " + e, e);
    }
    return new IllegalStateException("sql failed (" + what + "): " + e, e);
  }

  static boolean isTransient(SQLException e) {
    String state = e.getSQLState();
    return e instanceof SQLTransientException
        || e instanceof SQLRecoverableException
        || e instanceof SQLNonTransientConnectionException
        || (state != null && state.startsWith("08"))
        || e.getCause() instanceof java.io.IOException;
  }

  static boolean isUniqueViolation(SQLException e) {
    for (SQLException x = e; x != null; x = x.getNextException()) {
      String state = x.getSQLState();
      if (x instanceof SQLIntegrityConstraintViolationException
          || "23505".equals(state)
          || ("23000".equals(state) && x.getErrorCode() == 1062)) {
        return true;
      }
    }
    return false;
  }

  /** True when the database aborted the transaction to break a deadlock or a lock wait. */
  static boolean isDeadlock(Throwable t) {
    for (Throwable x = t; x != null; x = x.getCause()) {
      if (x instanceof SQLException e
          && ("40001".equals(e.getSQLState())
              || e.getErrorCode() == 1213
              || e.getErrorCode() == 1205)) {
        return true;
      }
    }
    return false;
  }

  /** Adds the non-zero deltas to a random shard, rows in name order (no lock-order deadlocks). */
  static void addCounters(Connection c, Map<String, Long> deltas) throws SQLException {
    Map<String, Long> nonZero = new TreeMap<>();
    deltas.forEach(
        (name, delta) -> {
          if (delta != 0) {
            nonZero.put(name, delta);
          }
        });
    if (nonZero.isEmpty()) {
      return;
    }
    int shard = ThreadLocalRandom.current().nextInt(COUNTER_SHARDS);
    String rows = String.join(",", Collections.nCopies(nonZero.size(), "(?, ?, ?)"));
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO counters (name, shard, counter_value) VALUES "
                + rows
                + " ON DUPLICATE KEY UPDATE counter_value = counter_value + VALUES(counter_value)")) {
      int i = 1;
      for (Map.Entry<String, Long> e : nonZero.entrySet()) {
        ps.setString(i++, e.getKey());
        ps.setInt(i++, shard);
        ps.setLong(i++, e.getValue());
      }
      ps.executeUpdate();
    }
  }

  static Long getLong(ResultSet rs, int i) throws SQLException {
    long v = rs.getLong(i);
    return rs.wasNull() ? null : v;
  }
}
