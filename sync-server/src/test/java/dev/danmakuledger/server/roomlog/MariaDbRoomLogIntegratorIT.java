package dev.danmakuledger.server.roomlog;

import dev.danmakuledger.server.storage.Database;
import dev.danmakuledger.server.storage.MariaDbDatabase;
import java.nio.file.Path;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/**
 * The room log integration contract on MariaDB/MySQL ({@code DANMAKU_TEST_JDBC_URL}), in a fresh
 * database per test that is dropped afterwards.
 */
@EnabledIfEnvironmentVariable(named = MariaDbDatabase.ENV, matches = ".+")
final class MariaDbRoomLogIntegratorIT extends RoomLogIntegratorContract {
  private MariaDbDatabase mariadb;

  @Override
  Database openDatabase(Path dir) throws Exception {
    mariadb = MariaDbDatabase.create();
    return Database.open(mariadb.url(), null, null);
  }

  @Override
  Database openAgain(Path dir) {
    return Database.open(mariadb.url(), null, null);
  }

  @Override
  void dropDatabase() throws Exception {
    mariadb.close();
  }
}
