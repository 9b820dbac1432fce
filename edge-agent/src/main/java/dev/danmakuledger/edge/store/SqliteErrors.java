package dev.danmakuledger.edge.store;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * How the SQLite store reports and recovers from JDBC failures: every message names the operation
 * and the store file, and a failed transaction is rolled back before the error leaves the store.
 */
record SqliteErrors(Path file, Connection conn) {
  StoreException fail(String what, SQLException e) {
    return new StoreException("cannot " + what + " in " + file + ": " + e.getMessage(), e);
  }

  void rollbackQuietly() {
    try {
      conn.rollback();
    } catch (SQLException ignored) {
      // The connection is already unusable; the original error is the one to report.
    }
  }

  void autoCommit() {
    try {
      conn.setAutoCommit(true);
    } catch (SQLException ignored) {
      // Reported by the next statement on this connection.
    }
  }
}
