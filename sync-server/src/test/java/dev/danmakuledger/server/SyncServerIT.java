package dev.danmakuledger.server;

/** The sync protocol on embedded defaults: embedded Redis and the H2 file database. */
final class SyncServerIT extends SyncProtocolContract {
  @Override
  ServerConfig.Builder backend(ServerConfig.Builder builder) {
    return builder;
  }
}
