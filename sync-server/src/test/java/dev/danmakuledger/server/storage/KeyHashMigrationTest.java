package dev.danmakuledger.server.storage;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The key hash migration on the embedded H2 database. */
final class KeyHashMigrationTest extends KeyHashMigrationContract {
  @TempDir Path dir;

  @Override
  String freshDatabase() {
    return Database.h2Url(dir);
  }

  @Override
  String tableOptions() {
    return "";
  }
}
