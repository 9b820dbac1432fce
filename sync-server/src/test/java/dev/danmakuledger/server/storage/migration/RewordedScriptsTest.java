package dev.danmakuledger.server.storage.migration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.danmakuledger.server.storage.Database;
import dev.danmakuledger.server.storage.MariaDbDatabase;
import dev.danmakuledger.server.storage.StorageUnavailableException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Map;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A database that applied a script before its comment was reworded still opens; one whose applied
 * script differs in any other way still fails Flyway's validation.
 */
final class RewordedScriptsTest {
  @TempDir Path dir;

  @Test
  void theListedChecksumsAreTheScriptsOfToday() {
    Flyway flyway =
        Flyway.configure()
            .dataSource(Database.h2Url(dir), null, null)
            .locations(Migrations.SCRIPTS)
            .placeholders(Map.of("tableOptions", ""))
            .load();
    for (RewordedScripts.Reworded r : RewordedScripts.ALL) {
      MigrationInfo info = null;
      for (MigrationInfo i : flyway.info().all()) {
        if (i.getVersion().getVersion().equals(r.version())) {
          info = i;
        }
      }
      assertTrue(info != null, "no migration V" + r.version());
      assertEquals(r.after(), info.getChecksum(), "V" + r.version() + " changed again: add it");
    }
  }

  @Test
  void anH2DatabaseThatAppliedTheEarlierWordingOpens() throws Exception {
    opensAfterTheEarlierWording(Database.h2Url(dir));
  }

  @Test
  void aMariaDbDatabaseThatAppliedTheEarlierWordingOpens() throws Exception {
    assumeTrue(MariaDbDatabase.configured(), MariaDbDatabase.ENV + " not set");
    try (MariaDbDatabase db = MariaDbDatabase.create()) {
      opensAfterTheEarlierWording(db.url());
    }
  }

  @Test
  void anAppliedScriptWithOtherStatementsStillFailsValidation() throws Exception {
    String url = Database.h2Url(dir);
    Database.open(url, null, null).close();
    setChecksum(url, "1", 12345);
    StorageUnavailableException e =
        assertThrows(StorageUnavailableException.class, () -> Database.open(url, null, null));
    assertTrue(e.getMessage().contains("checksum"), e.getMessage());
    assertEquals(12345, checksum(url, "1"));
  }

  @Test
  void aFreshDatabaseHasNothingToRealign() throws Exception {
    try (Database db = Database.open(Database.h2Url(dir), null, null)) {
      assertEquals(0, RewordedScripts.realign(db.dataSource()));
    }
  }

  private static void opensAfterTheEarlierWording(String url) throws Exception {
    Database.open(url, null, null).close();
    RewordedScripts.Reworded v1 = RewordedScripts.ALL.get(0);
    setChecksum(url, v1.version(), v1.before());
    Database.open(url, null, null).close();
    assertEquals(v1.after(), checksum(url, v1.version()));
  }

  private static void setChecksum(String url, String version, int checksum) throws Exception {
    try (Connection c = DriverManager.getConnection(url);
        PreparedStatement ps =
            c.prepareStatement("UPDATE flyway_schema_history SET checksum = ? WHERE version = ?")) {
      ps.setInt(1, checksum);
      ps.setString(2, version);
      assertEquals(1, ps.executeUpdate());
    }
  }

  private static int checksum(String url, String version) throws Exception {
    try (Connection c = DriverManager.getConnection(url);
        PreparedStatement ps =
            c.prepareStatement("SELECT checksum FROM flyway_schema_history WHERE version = ?")) {
      ps.setString(1, version);
      try (ResultSet rs = ps.executeQuery()) {
        assertTrue(rs.next());
        return rs.getInt(1);
      }
    }
  }
}
