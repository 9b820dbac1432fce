package dev.danmakuledger.server.storage;

import java.sql.Connection;
import org.flywaydb.core.api.configuration.Configuration;
import org.flywaydb.core.api.migration.Context;

/** What an upgrade test needs of its database, on H2 and on MariaDB/MySQL alike. */
abstract class MigrationContract {
  /** A fresh, empty database: its JDBC URL. */
  abstract String freshDatabase() throws Exception;

  /** The {@code tableOptions} placeholder of that database. */
  abstract String tableOptions();

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
