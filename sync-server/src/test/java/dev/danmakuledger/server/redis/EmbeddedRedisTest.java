package dev.danmakuledger.server.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The embedded Redis answers only clients that know its password (docs/security.md). */
final class EmbeddedRedisTest {
  @TempDir Path dir;

  @Test
  void withoutThePasswordEveryCommandIsRefused() throws Exception {
    String password = "p4ssw0rd-" + System.nanoTime();
    try (EmbeddedRedis redis = EmbeddedRedis.start(dir, password)) {
      assertFalse(redis.describe().contains(password), redis.describe());
      Path conf = dir.resolve("redis.conf");
      assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(conf)));
      RedisClient anonymous =
          RedisClient.create(RedisURI.create("redis://127.0.0.1:" + redis.port()));
      try {
        RedisConnectionException e =
            assertThrows(RedisConnectionException.class, anonymous::connect);
        assertTrue(String.valueOf(e.getCause()).contains("NOAUTH"), String.valueOf(e.getCause()));
      } finally {
        anonymous.shutdown();
      }
      RedisClient wrong =
          RedisClient.create(RedisURI.create("redis://:guess@127.0.0.1:" + redis.port()));
      try {
        RedisConnectionException e = assertThrows(RedisConnectionException.class, wrong::connect);
        assertTrue(
            String.valueOf(e.getCause()).contains("WRONGPASS"), String.valueOf(e.getCause()));
      } finally {
        wrong.shutdown();
      }
      RedisClient owner = RedisClient.create(RedisURI.create(redis.uri()));
      try (StatefulRedisConnection<String, String> c = owner.connect()) {
        assertEquals("PONG", c.sync().ping());
      } finally {
        owner.shutdown();
      }
    }
  }

  /**
   * The binary is extracted into the data directory once and reused by a restart, which writes no
   * copy of its own (into the system's temporary directory, as the jar's default provider does).
   */
  @Test
  void restartsReuseOneBinaryInTheDataDirectory() throws Exception {
    Path binary;
    try (EmbeddedRedis first = EmbeddedRedis.start(dir, "first-pw")) {
      assertTrue(first.port() > 0);
      try (Stream<Path> s = Files.list(dir.resolve("redis-bin"))) {
        List<Path> bins =
            s.filter(p -> p.getFileName().toString().startsWith("redis-server")).toList();
        assertEquals(1, bins.size(), bins.toString());
        binary = bins.get(0);
      }
    }
    FileTime extracted = Files.getLastModifiedTime(binary);
    try (EmbeddedRedis second = EmbeddedRedis.start(dir, "second-pw")) {
      assertTrue(second.port() > 0);
      assertEquals(extracted, Files.getLastModifiedTime(binary), "not written again");
    }
    try (Stream<Path> s = Files.list(dir.resolve("redis-bin"))) {
      assertEquals(List.of(binary), s.toList(), "no staging copy or output file left beside it");
    }
  }
}
