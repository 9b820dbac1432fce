package dev.danmakuledger.server.storage;

import dev.danmakuledger.server.storage.migration.Migrations;
import java.sql.Connection;
import org.flywaydb.core.api.configuration.Configuration;
import org.flywaydb.core.api.migration.Context;
import org.flywaydb.core.api.migration.JavaMigration;

/** What an upgrade test needs of its database, on H2 and on MariaDB/MySQL alike. */
abstract class MigrationContract {
  /** A fresh, empty database: its JDBC URL. */
  abstract String freshDatabase() throws Exception;

  /** The {@code tableOptions} placeholder of that database. */
  abstract String tableOptions();

  /** The Java migration of {@code version}, to run again by hand. */
  static JavaMigration javaMigration(String version) {
    return Migrations.java().stream()
        .filter(m -> m.getVersion().getVersion().equals(version))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no Java migration " + version));
  }

  /** A Flyway context over {@code c}, to run a Java migration again by hand. */
  static Context context(Connection c) {
    return new Context() {
      @Override
      public Configuration getConfiguration() {
        return null;
      }

      @Override
      public Connection getConnection() {
        return c;
      }
    };
  }
}
