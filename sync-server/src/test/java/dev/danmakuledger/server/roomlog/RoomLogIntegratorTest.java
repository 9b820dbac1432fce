package dev.danmakuledger.server.roomlog;

import dev.danmakuledger.server.storage.Database;
import java.nio.file.Path;

/** The room log integration contract on embedded H2. */
final class RoomLogIntegratorTest extends RoomLogIntegratorContract {
  @Override
  Database openDatabase(Path dir) {
    return Database.open(Database.h2Url(dir), null, null);
  }

  @Override
  Database openAgain(Path dir) {
    return openDatabase(dir);
  }

  @Override
  void dropDatabase() {}
}
