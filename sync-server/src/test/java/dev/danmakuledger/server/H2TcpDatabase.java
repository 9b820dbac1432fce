package dev.danmakuledger.server;

import java.nio.file.Path;
import java.sql.SQLException;
import org.h2.tools.Server;

/**
 * An H2 database behind a TCP server of its own, so that a test can reach it beside the sync server
 * under test (to change a stored row) or stop it (the database going away).
 */
final class H2TcpDatabase implements AutoCloseable {
  private final Server tcp;
  private final String url;

  private H2TcpDatabase(Server tcp) {
    this.tcp = tcp;
    this.url =
        "jdbc:h2:tcp://127.0.0.1:" + tcp.getPort() + "/ledger;MODE=MySQL;DATABASE_TO_LOWER=TRUE";
  }

  /** Starts a TCP server on a free port for databases under {@code dir}. */
  static H2TcpDatabase start(Path dir) throws SQLException {
    return new H2TcpDatabase(
        Server.createTcpServer("-tcpPort", "0", "-ifNotExists", "-baseDir", dir.toString())
            .start());
  }

  String url() {
    return url;
  }

  /** A sync server on this database and the Redis at {@code redisUri}. */
  SyncServer startServer(Path dataDir, String redisUri) {
    return SyncServer.start(
        ServerConfig.builder(dataDir).redisUri(redisUri).jdbc(url, "sa", "").build());
  }

  /** Stops the TCP server: the database goes away for every client (again: nothing). */
  void stop() {
    tcp.stop();
  }

  @Override
  public void close() {
    stop();
  }
}
