package dev.danmakuledger.server.storage.migration;

import org.flywaydb.core.api.MigrationVersion;
import org.flywaydb.core.api.migration.JavaMigration;

/**
 * A Java migration that runs outside a transaction, committing as it goes, so that a large table
 * does not become one huge transaction; it must therefore be safe to rerun after a crash, before
 * Flyway recorded it. No checksum: its code is its definition.
 */
abstract class MigrationOutsideTransaction implements JavaMigration {
  private final MigrationVersion version;
  private final String description;

  MigrationOutsideTransaction(String version, String description) {
    this.version = MigrationVersion.fromVersion(version);
    this.description = description;
  }

  @Override
  public final MigrationVersion getVersion() {
    return version;
  }

  @Override
  public final String getDescription() {
    return description;
  }

  @Override
  public final Integer getChecksum() {
    return null;
  }

  @Override
  public final boolean canExecuteInTransaction() {
    return false;
  }
}
