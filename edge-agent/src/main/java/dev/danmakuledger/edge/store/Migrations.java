package dev.danmakuledger.edge.store;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * The store's schema history: ordered scripts under {@code resources/dev/danmakuledger/edge/store},
 * each applied once in its own transaction and recorded in {@code meta.schema_version}, so a store
 * written by an older agent is brought up to date and one from a newer agent is refused.
 */
final class Migrations {
  /** Migration scripts in order; the schema version is the number applied. */
  static final List<String> SCRIPTS =
      List.of("V1__device_log.sql", "V2__pruning.sql", "V3__unsynced_index.sql");

  private Migrations() {}

  /** The schema version this agent writes. */
  static int current() {
    return SCRIPTS.size();
  }

  /** Number of migrations applied; 0 for a file without the schema. */
  static long version(Connection conn) throws SQLException {
    try (Statement st = conn.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'")) {
      if (!rs.next() || rs.getLong(1) == 0) {
        return 0;
      }
    }
    try (PreparedStatement ps = conn.prepareStatement("SELECT value FROM meta WHERE name = ?")) {
      ps.setString(1, "schema_version");
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Long.parseLong(rs.getString(1)) : 0;
      }
    }
  }

  /**
   * Applies the scripts after {@code version}, each in its own transaction.
   *
   * @throws StoreException naming the script that failed; earlier ones stay applied
   */
  static void apply(Connection conn, long version, SqliteErrors errors) throws StoreException {
    if (version > current()) {
      throw new StoreException(
          "store "
              + errors.file()
              + " has schema version "
              + version
              + ", newer than this agent's "
              + current());
    }
    for (int i = (int) version; i < current(); i++) {
      String script = read(SCRIPTS.get(i));
      try {
        conn.setAutoCommit(false);
        try (Statement st = conn.createStatement()) {
          for (String sql : script.split("\n;\n")) {
            if (!sql.isBlank()) {
              st.executeUpdate(sql);
            }
          }
          st.executeUpdate(
              "INSERT INTO meta(name, value) VALUES ('schema_version', '"
                  + (i + 1)
                  + "') ON CONFLICT(name) DO UPDATE SET value = excluded.value");
          if (i == 0) {
            st.executeUpdate("INSERT INTO log_state(id, size, compact_range) VALUES (0, 0, x'')");
          }
        }
        conn.commit();
      } catch (SQLException e) {
        errors.rollbackQuietly();
        throw errors.fail("apply migration " + SCRIPTS.get(i), e);
      } finally {
        errors.autoCommit();
      }
    }
  }

  private static String read(String name) throws StoreException {
    try (InputStream in = Migrations.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new StoreException("migration script " + name + " is missing from the classpath");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new StoreException("cannot read migration script " + name, e);
    }
  }
}
