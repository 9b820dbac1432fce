package dev.danmakuledger.server.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import redis.embedded.RedisServer;

/**
 * The default Redis (docs/architecture.md §6): the real redis-server shipped in the embedded-redis
 * jar, bound to loopback on a free port, without persistence (SQL is the durable store; a lost
 * counter is re-seeded from it).
 */
public final class EmbeddedRedis implements AutoCloseable {
  private final RedisServer server;
  private final int port;

  private EmbeddedRedis(RedisServer server, int port) {
    this.server = server;
    this.port = port;
  }

  /** Starts a redis-server on a free loopback port. */
  public static EmbeddedRedis start() {
    int port = freePort();
    try {
      RedisServer server =
          RedisServer.newRedisServer()
              .port(port)
              .bind("127.0.0.1")
              .setting("save \"\"")
              .setting("appendonly no")
              .build();
      server.start();
      return new EmbeddedRedis(server, port);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start embedded redis on port " + port, e);
    }
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free loopback port", e);
    }
  }

  public int port() {
    return port;
  }

  public String uri() {
    return "redis://127.0.0.1:" + port;
  }

  @Override
  public void close() {
    try {
      server.stop();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot stop embedded redis", e);
    }
  }
}
