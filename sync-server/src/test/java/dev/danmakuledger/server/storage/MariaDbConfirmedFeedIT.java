package dev.danmakuledger.server.storage;

import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/**
 * Confirmation runs on MariaDB/MySQL ({@code DANMAKU_TEST_JDBC_URL}), in a fresh database per test
 * that is dropped afterwards.
 */
@EnabledIfEnvironmentVariable(named = MariaDbDatabase.ENV, matches = ".+")
final class MariaDbConfirmedFeedIT extends ConfirmedFeedContract {
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
