package dev.danmakuledger.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A redis-server the harness starts is known to be its own child before the harness uses it. */
class RedisAdminTest {
  @TempDir Path dir;

  @Test
  void servesWhenTheChildAnswersAndFailsWhenThePortIsSomeoneElses() throws Exception {
    Path binary = redisServer();
    int port = freePort();
    Child first = redis(binary, port, "first");
    try {
      first.start();
      RedisAdmin.awaitServing(first, port, Duration.ofSeconds(20));

      Child second = redis(binary, port, "second");
      second.start();
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (second.alive() && System.nanoTime() < deadline) {
        Thread.sleep(20); // a redis-server that cannot bind its port exits at once
      }
      IOException exited =
          assertThrows(
              IOException.class,
              () -> RedisAdmin.awaitServing(second, port, Duration.ofSeconds(20)));
      assertTrue(
          exited.getMessage().startsWith("second exited before serving :" + port),
          exited::getMessage);
      assertTrue(exited.getMessage().contains("Address already in use"), exited::getMessage);

      Child other = new Child("sleeper", List.of("sleep", "30"), dir.resolve("sleeper.log"));
      other.start();
      try {
        IOException taken =
            assertThrows(
                IOException.class,
                () -> RedisAdmin.awaitServing(other, port, Duration.ofSeconds(20)));
        assertTrue(
            taken
                .getMessage()
                .equals(
                    "another redis-server (pid "
                        + first.pid()
                        + ") answers on :"
                        + port
                        + ", not sleeper"),
            taken::getMessage);
      } finally {
        other.kill();
      }
    } finally {
      first.kill();
    }
  }

  private Child redis(Path binary, int port, String name) {
    return new Child(name, RedisBinary.command(binary, port, dir), dir.resolve(name + ".log"));
  }

  private static Path redisServer() {
    try {
      return RedisBinary.find();
    } catch (IOException e) {
      Assumptions.abort("no redis-server on this machine");
      throw new AssertionError(e);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
