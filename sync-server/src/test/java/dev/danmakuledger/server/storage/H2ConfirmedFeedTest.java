package dev.danmakuledger.server.storage;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** Confirmation runs on the embedded H2 file database in MySQL mode. */
final class H2ConfirmedFeedTest extends ConfirmedFeedContract {
  @TempDir Path dir;

  @Override
  Database openDatabase() {
    return Database.open(Database.h2Url(dir), null, null);
  }

  @Override
  void dropDatabase() {}
}
