package dev.danmakuledger.server;

import dev.danmakuledger.server.storage.MariaDbDatabase;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/**
 * The sync protocol durable in MariaDB/MySQL ({@code DANMAKU_TEST_JDBC_URL}), in a fresh database
 * dropped afterwards; Redis is embedded.
 */
@EnabledIfEnvironmentVariable(named = MariaDbDatabase.ENV, matches = ".+")
final class MariaDbSyncServerIT extends SyncProtocolContract {
  private MariaDbDatabase mariadb;

  @Override
  ServerConfig.Builder backend(ServerConfig.Builder builder) throws Exception {
    mariadb = MariaDbDatabase.create();
    return builder.jdbc(mariadb.url(), null, null);
  }

  @Override
  void dropBackend() throws Exception {
    mariadb.close();
  }
}
