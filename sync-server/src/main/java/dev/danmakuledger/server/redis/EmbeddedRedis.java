package dev.danmakuledger.server.redis;

import dev.danmakuledger.server.DataDirectory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The default Redis (docs/architecture.md §6): the real redis-server shipped in the embedded-redis
 * jar, bound to loopback on a free port, without persistence (SQL is the durable store; a lost
 * counter is re-seeded from it). The server's instance requires a password (docs/security.md):
 * other local users can reach a loopback port, and Redis has no other access control. The password
 * reaches redis-server through an owner-only {@code redis.conf} in the data directory that the
 * command line includes, never through the command line itself or a shared temporary file.
 *
 * <p>The process is this object's alone: it stops in {@link #close()}, after the clients that the
 * server closes before it, so a clean shutdown drains over a live Redis. (The embedded-redis jar's
 * own launcher stops its server from a JVM shutdown hook of its own, which races the server's
 * drain.) Should the JVM exit without {@link #close()} (stopped while it starts, say), a shutdown
 * hook of ours stops the process once the owner had its time to close it.
 */
public final class EmbeddedRedis implements AutoCloseable {
  private static final long START_TIMEOUT_MS = 20_000;
  private static final long STOP_TIMEOUT_MS = 5_000;

  /**
   * How long the exit hook leaves a server's owner to close it (the sync server drains its batches
   * for up to 20 s, docs/operations.md) before it stops the process itself.
   */
  private static final Duration OWNER_GRACE_AT_EXIT = Duration.ofSeconds(30);

  private final Process process;
  private final int port;
  private final String password;

  private final Path log;
  private final CountDownLatch closed = new CountDownLatch(1);
  private final Thread stopAtExit;

  /**
   * @param log where the process writes its output; removed when it stops, kept when it dies
   */
  private EmbeddedRedis(
      Process process, int port, String password, Path log, Duration ownerGraceAtExit) {
    this.process = process;
    this.port = port;
    this.password = password;
    this.log = log;
    this.stopAtExit =
        new Thread(
            () -> {
              try {
                closed.await(ownerGraceAtExit.toMillis(), TimeUnit.MILLISECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              stop();
            },
            "embedded-redis-stop");
    Runtime.getRuntime().addShutdownHook(stopAtExit);
  }

  /**
   * Starts a redis-server on a free loopback port that refuses clients without {@code password};
   * writes {@code confDir/redis.conf} (0600) and keeps the binary in {@code confDir/redis-bin}.
   */
  public static EmbeddedRedis start(Path confDir, String password) {
    if (password == null || password.isBlank() || !password.matches("[A-Za-z0-9_-]+")) {
      throw new IllegalArgumentException("password: got an empty or non-token value, want a token");
    }
    Path dir = confDir.toAbsolutePath();
    Path conf = dir.resolve("redis.conf");
    DataDirectory.writeSecretFile(conf, "requirepass " + password + "\n");
    return launch(dir, List.of("--include", conf.toString()), password, OWNER_GRACE_AT_EXIT);
  }

  /**
   * Starts a redis-server on a free loopback port without a password, for benchmarks and tests that
   * own the machine; the sync server uses {@link #start(Path, String)}. It stops at JVM exit at the
   * latest.
   */
  public static EmbeddedRedis start() {
    return launch(RedisBinary.userCache(), List.of(), null, Duration.ZERO);
  }

  private static EmbeddedRedis launch(
      Path dir, List<String> settings, String password, Duration ownerGraceAtExit) {
    int port = freePort();
    List<String> command = new ArrayList<>();
    try {
      command.add(RedisBinary.extracted(dir.resolve("redis-bin")).getAbsolutePath());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot extract the embedded redis-server into " + dir, e);
    }
    command.addAll(
        List.of(
            "--port",
            Integer.toString(port),
            "--bind",
            "127.0.0.1",
            "--protected-mode",
            "yes",
            "--save",
            "",
            "--appendonly",
            "no",
            "--daemonize",
            "no"));
    command.addAll(settings);
    Path log = dir.resolve("redis-bin").resolve("redis-" + port + ".log");
    Process process;
    try {
      process =
          new ProcessBuilder(command)
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start embedded redis on port " + port, e);
    }
    EmbeddedRedis redis = new EmbeddedRedis(process, port, password, log, ownerGraceAtExit);
    try {
      redis.awaitAccepting();
    } catch (IOException | RuntimeException e) {
      redis.close();
      throw e instanceof RuntimeException r
          ? r
          : new UncheckedIOException(
              "cannot start embedded redis on port " + port, (IOException) e);
    }
    return redis;
  }

  /** Waits until the port accepts connections; fails with the server's output if it exits. */
  private void awaitAccepting() throws IOException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MS);
    while (true) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "embedded redis-server exited at start (code "
                + process.exitValue()
                + "): "
                + Files.readString(log).strip());
      }
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
        return;
      } catch (IOException notYet) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "embedded redis-server did not accept connections on port "
                  + port
                  + " within "
                  + START_TIMEOUT_MS
                  + " ms");
        }
        try {
          Thread.sleep(20);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted while starting embedded redis", e);
        }
      }
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

  /**
   * Stops the server (SIGTERM, then SIGKILL after a few seconds) and removes its output file; a
   * second call does nothing. A server that died on its own keeps the file, for its operator.
   */
  @Override
  public void close() {
    stop();
    closed.countDown();
    try {
      Runtime.getRuntime().removeShutdownHook(stopAtExit);
    } catch (IllegalStateException shuttingDown) {
      // the hook runs, and returns at once now
    }
  }

  private synchronized void stop() {
    if (!process.isAlive()) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(STOP_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
        process.destroyForcibly().waitFor(STOP_TIMEOUT_MS, TimeUnit.MILLISECONDS);
      }
      Files.deleteIfExists(log);
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot remove " + log, e);
    }
  }
}
