package dev.danmakuledger.server.storage;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/** The key hash migration on MariaDB/MySQL ({@code DANMAKU_TEST_JDBC_URL}), in a fresh database. */
@EnabledIfEnvironmentVariable(named = MariaDbDatabase.ENV, matches = ".+")
final class MariaDbKeyHashMigrationIT extends KeyHashMigrationContract {
  private MariaDbDatabase mariadb;

  @Override
  String freshDatabase() throws Exception {
    mariadb = MariaDbDatabase.create();
    return mariadb.url();
  }

  @Override
  String tableOptions() {
    return Database.MYSQL_TABLE_OPTIONS;
  }

  @AfterEach
  void drop() throws Exception {
    if (mariadb != null) {
      mariadb.close();
    }
  }
}
