package dev.danmakuledger.server.redis;

import dev.danmakuledger.server.DataDirectory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import redis.embedded.RedisServer;

/**
 * The default Redis (docs/architecture.md §6): the real redis-server shipped in the embedded-redis
 * jar, bound to loopback on a free port, without persistence (SQL is the durable store; a lost
 * counter is re-seeded from it). The server's instance requires a password (docs/security.md):
 * other local users can reach a loopback port, and Redis has no other access control. The password
 * reaches redis-server through an owner-only {@code redis.conf} in the data directory that the
 * generated configuration includes, never through the command line or a shared temporary file.
 */
public final class EmbeddedRedis implements AutoCloseable {
  private final RedisServer server;
  private final int port;
  private final String password;

  private EmbeddedRedis(RedisServer server, int port, String password) {
    this.server = server;
    this.port = port;
    this.password = password;
  }

  /**
   * Starts a redis-server on a free loopback port that refuses clients without {@code password};
   * writes {@code confDir/redis.conf} (0600).
   */
  public static EmbeddedRedis start(Path confDir, String password) {
    if (password == null || password.isBlank() || !password.matches("[A-Za-z0-9_-]+")) {
      throw new IllegalArgumentException("password: got an empty or non-token value, want a token");
    }
    Path conf = confDir.toAbsolutePath().resolve("redis.conf");
    DataDirectory.writeSecretFile(conf, "requirepass " + password + "\n");
    return launch(confDir.toAbsolutePath(), "include " + quoted(conf.toString()), password);
  }

  /**
   * Starts a redis-server on a free loopback port without a password, for benchmarks and tests that
   * own the machine; the sync server uses {@link #start(Path, String)}.
   */
  public static EmbeddedRedis start() {
    return launch(RedisBinary.userCache(), null, null);
  }

  /** Starts redis-server from the binary kept in {@code binaryDir} (extracted there once). */
  private static EmbeddedRedis launch(Path binaryDir, String extraSetting, String password) {
    int port = freePort();
    try {
      var builder =
          RedisServer.newRedisServer()
              .executableProvider(RedisBinary.in(binaryDir.resolve("redis-bin")))
              .port(port)
              .bind("127.0.0.1")
              .setting("protected-mode yes")
              .setting("save \"\"")
              .setting("appendonly no");
      if (extraSetting != null) {
        builder.setting(extraSetting);
      }
      RedisServer server = builder.build();
      server.start();
      return new EmbeddedRedis(server, port, password);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start embedded redis on port " + port, e);
    }
  }

  /** A redis.conf string argument: quoted, with backslashes and quotes escaped. */
  private static String quoted(String s) {
    return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
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

  /** The URI to connect with, including the password when there is one: do not print it. */
  public String uri() {
    return password == null
        ? "redis://127.0.0.1:" + port
        : "redis://:" + password + "@127.0.0.1:" + port;
  }

  /** The URI without the password, for logs and the startup report. */
  public String describe() {
    return "redis://127.0.0.1:" + port + (password == null ? "" : " (password required)");
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
