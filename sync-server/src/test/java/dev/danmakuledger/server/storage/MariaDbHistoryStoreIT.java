package dev.danmakuledger.server.storage;

import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/**
 * The history storage contract on MariaDB/MySQL ({@code DANMAKU_TEST_JDBC_URL}), in a fresh
 * database per test that is dropped afterwards.
 */
@EnabledIfEnvironmentVariable(named = MariaDbDatabase.ENV, matches = ".+")
final class MariaDbHistoryStoreIT extends HistoryStoreContract {
  private MariaDbDatabase mariadb;

  @Override
  Database openDatabase() throws Exception {
    mariadb = MariaDbDatabase.create();
    return Database.open(mariadb.url(), null, null);
  }

  @Override
  void dropDatabase() throws Exception {
    mariadb.close();
  }
}
