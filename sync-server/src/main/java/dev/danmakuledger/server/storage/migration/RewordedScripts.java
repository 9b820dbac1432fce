package dev.danmakuledger.server.storage.migration;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import javax.sql.DataSource;

/**
 * Migration scripts whose comments were reworded after databases had applied them. Flyway records a
 * checksum of every applied script and refuses to start when a script no longer matches it; a
 * comment is part of that checksum although it changes no schema. Before Flyway validates, an
 * applied script that carries exactly its earlier checksum has it moved to today's; any other
 * mismatch (a script whose statements changed) still fails validation.
 */
final class RewordedScripts {
  /** One reworded script: its version and its checksum before and after the rewording. */
  record Reworded(String version, int before, int after) {}

  /** V1's first comment now cites docs/architecture.md instead of an outside document. */
  static final List<Reworded> ALL = List.of(new Reworded("1", -1015920048, 909203229));

  private static final String HISTORY = "flyway_schema_history";

  private RewordedScripts() {}

  /**
   * Moves the recorded checksum of every reworded script that still has its earlier one.
   *
   * @return the number of scripts realigned
   */
  static int realign(DataSource ds) throws SQLException {
    try (Connection c = ds.getConnection()) {
      if (!hasHistory(c)) {
        return 0;
      }
      int n = 0;
      try (PreparedStatement ps =
          c.prepareStatement(
              "UPDATE " + HISTORY + " SET checksum = ? WHERE version = ? AND checksum = ?")) {
        for (Reworded r : ALL) {
          ps.setInt(1, r.after());
          ps.setString(2, r.version());
          ps.setInt(3, r.before());
          n += ps.executeUpdate();
        }
      }
      if (!c.getAutoCommit()) {
        c.commit();
      }
      return n;
    }
  }

  private static boolean hasHistory(Connection c) throws SQLException {
    DatabaseMetaData md = c.getMetaData();
    for (String name : List.of(HISTORY, HISTORY.toUpperCase(java.util.Locale.ROOT))) {
      try (ResultSet rs = md.getTables(c.getCatalog(), null, name, new String[] {"TABLE"})) {
        if (rs.next()) {
          return true;
        }
      }
    }
    return false;
  }
}
