package dev.danmakuledger.server.storage;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLIntegrityConstraintViolationException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;

/**
 * The JDBC plumbing every store shares: statements with binders and row mappers, transactions (on a
 * store's own data source, or the static forms for stores that hold only a {@link DataSource}),
 * counter upserts, and the translation of driver errors into the storage exceptions
 * (docs/architecture.md §6). The same SQL runs on H2 (MySQL mode) and MariaDB/MySQL.
 */
final class Jdbc {
  /** Binds the parameters of a statement. */
  @FunctionalInterface
  interface Binder {
    void bind(PreparedStatement ps) throws SQLException;
  }

  /** Maps the current row of a result set. */
  @FunctionalInterface
  interface RowMapper<T> {
    T map(ResultSet rs) throws SQLException;
  }

  /** The body of a transaction. */
  @FunctionalInterface
  interface TxBody<T> {
    T run(Connection c) throws SQLException;
  }

  private final DataSource ds;

  Jdbc(DataSource ds) {
    this.ds = ds;
  }

  Connection connection() throws SQLException {
    return ds.getConnection();
  }

  <T> List<T> query(String sql, Binder binder, RowMapper<T> mapper) {
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      binder.bind(ps);
      try (ResultSet rs = ps.executeQuery()) {
        List<T> out = new ArrayList<>();
        while (rs.next()) {
          out.add(mapper.map(rs));
        }
        return out;
      }
    } catch (SQLException e) {
      throw failure(sql, e);
    }
  }

  <T> Optional<T> queryOne(String sql, Binder binder, RowMapper<T> mapper) {
    List<T> rows = query(sql, binder, mapper);
    return rows.isEmpty() ? Optional.empty() : Optional.ofNullable(rows.get(0));
  }

  int update(String sql, Binder binder) {
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      binder.bind(ps);
      return ps.executeUpdate();
    } catch (SQLException e) {
      throw failure(sql, e);
    }
  }

  <T> T inTransaction(TxBody<T> body) {
    try {
      return inTransactionOrThrow(body);
    } catch (SQLException e) {
      throw failure("transaction", e);
    }
  }

  /** Runs {@code body} in one transaction, rolled back on any failure, which is rethrown as is. */
  <T> T inTransactionOrThrow(TxBody<T> body) throws SQLException {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      try {
        T result = body.run(c);
        c.commit();
        c.setAutoCommit(true);
        return result;
      } catch (SQLException | RuntimeException e) {
        quietly(c, e, true);
        throw e;
      }
    }
  }

  /** Rolls back and/or restores auto-commit without masking the failure being thrown. */
  private static void quietly(Connection c, Exception cause, boolean rollback) {
    try {
      if (rollback) {
        c.rollback();
      }
      c.setAutoCommit(true);
    } catch (SQLException e) {
      cause.addSuppressed(e);
    }
  }

  static RuntimeException failure(String what, SQLException e) {
    if (isTransient(e)) {
      return new StorageUnavailableException("sql unavailable (" + what + "): " + e, e);
    }
    return new IllegalStateException("sql failed (" + what + "): " + e, e);
  }

  /**
   * A lost connection or timeout, also when a driver or trigger wraps it in another error or
   * reports it as the next exception of a batch update.
   */
  static boolean isTransient(SQLException e) {
    return isTransient(e, 0);
  }

  private static boolean isTransient(Throwable t, int depth) {
    if (t == null || depth > 8) {
      return false;
    }
    if (t instanceof java.io.IOException) {
      return true;
    }
    if (t instanceof SQLException x) {
      String state = x.getSQLState();
      if (x instanceof SQLTransientException
          || x instanceof SQLRecoverableException
          || x instanceof SQLNonTransientConnectionException
          || (state != null && state.startsWith("08"))) {
        return true;
      }
      SQLException next = x.getNextException();
      if (next != null && next != x && isTransient(next, depth + 1)) {
        return true;
      }
    }
    return t.getCause() != t && isTransient(t.getCause(), depth + 1);
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
    return e.getCause() instanceof SQLException cause && cause != e && isUniqueViolation(cause);
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

  /** Runs {@code body} in one transaction on a connection of {@code ds}; rolls back on failure. */
  static <T> T inTransaction(DataSource ds, String what, TxBody<T> body) {
    try {
      return new Jdbc(ds).inTransactionOrThrow(body);
    } catch (SQLException e) {
      throw failure(what, e);
    }
  }

  /** Runs a read on its own connection of {@code ds}. */
  static <T> T read(DataSource ds, String what, TxBody<T> body) {
    return new Jdbc(ds).read(what, body);
  }

  /** Runs a read on a connection of its own. */
  <T> T read(String what, TxBody<T> body) {
    try (Connection c = ds.getConnection()) {
      return body.run(c);
    } catch (SQLException e) {
      throw failure(what, e);
    }
  }

  /**
   * Adds the non-zero deltas to a random counter shard in one upsert (for writers that are not tied
   * to one device; a device's batches use the device's shard).
   */
  static void addCounters(Connection c, Map<String, Long> deltas) throws SQLException {
    CounterStore.add(c, deltas, ThreadLocalRandom.current().nextInt(CounterStore.SHARDS));
  }

  static String positive(int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit: got " + limit + ", want >= 1");
    }
    return Integer.toString(limit);
  }

  static void setLong(PreparedStatement ps, int i, Long v) throws SQLException {
    if (v == null) {
      ps.setNull(i, Types.BIGINT);
    } else {
      ps.setLong(i, v);
    }
  }

  static Long getLong(ResultSet rs, int i) throws SQLException {
    long v = rs.getLong(i);
    return rs.wasNull() ? null : v;
  }
}
