package dev.danmakuledger.server.storage.migration;

import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.migration.JavaMigration;

/**
 * The schema's migrations, applied by Flyway with the same scripts on H2 and MariaDB/MySQL: the SQL
 * scripts under {@value #SCRIPTS} and the Java migrations of this package (those that move data in
 * chunks, outside one transaction). Java migrations are handed to Flyway by instance, not found by
 * scanning, so this class lists every one of them.
 */
public final class Migrations {
  /** Where the SQL scripts are, {@code V<n>__<what>.sql}. */
  public static final String SCRIPTS = "classpath:db/migration";

  private Migrations() {}

  /**
   * Brings the schema behind {@code ds} up to date.
   *
   * @param tableOptions what follows each {@code CREATE TABLE} (the {@code tableOptions}
   *     placeholder of the scripts): empty on H2, the engine and character set on MariaDB/MySQL
   * @throws org.flywaydb.core.api.FlywayException if a migration fails or an applied script changed
   */
  public static void migrate(DataSource ds, String tableOptions) throws SQLException {
    RewordedScripts.realign(ds);
    Flyway.configure()
        .dataSource(ds)
        .locations(SCRIPTS)
        .javaMigrations(java().toArray(JavaMigration[]::new))
        .placeholders(Map.of("tableOptions", tableOptions))
        .load()
        .migrate();
  }

  /**
   * The Java migrations in version order, for a Flyway configured by hand (an upgrade test that
   * stops at an earlier version, then writes data of that schema).
   */
  public static List<JavaMigration> java() {
    return List.of(new RecordsToBundles(), new KeyHashGuard());
  }
}
