package dev.danmakuledger.edge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.edge.capture.CaptureRequest;
import dev.danmakuledger.edge.config.AgentConfig;
import dev.danmakuledger.edge.sync.ServerLink;
import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import dev.danmakuledger.protocol.key.IdempotencyKey;
import dev.danmakuledger.protocol.testing.MutableClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The data directory and everything in it are private to the agent's user (POSIX modes). */
class PrivateDataDirTest {
  @TempDir Path tmp;
  private final MutableClock clock = new MutableClock(Instant.parse("2026-06-01T08:00:00Z"));

  private static String mode(Path p) throws IOException {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
  }

  private Path initialised() throws IOException {
    Path dir = tmp.resolve("agent");
    EdgeAgent.initialise(dir, AgentConfig.defaults("kiosk-1"), clock);
    return dir;
  }

  @Test
  void initCreatesAnOwnerOnlyDirectoryAndFiles() throws Exception {
    Path dir = initialised();
    assertEquals("rwx------", mode(dir));
    try (EdgeAgent agent = EdgeAgent.open(dir, clock)) {
      agent
          .capture()
          .capture(
              new CaptureRequest(
                  IdempotencyKey.parse("kiosk-1:alice:1700000000000:00112233445566778899aabb"),
                  "room-1",
                  "alice",
                  "hello",
                  null,
                  CaptureRequest.DEFAULT_MODE,
                  CaptureRequest.DEFAULT_COLOR,
                  CaptureRequest.DEFAULT_FONT_SIZE));
      new ServerLink(
              "http://127.0.0.1:8080",
              NoteSigner.generate("test-server", new SecureRandom()).verifierKey())
          .save(dir);
      try (Stream<Path> files = Files.list(dir)) {
        for (Path f : files.toList()) {
          assertEquals("rw-------", mode(f), f.toString());
        }
      }
      for (String name :
          new String[] {
            "agent.db",
            "agent.db-wal",
            "agent.db-shm",
            "device.key",
            "agent.properties",
            "agent.lock",
            "server.properties"
          }) {
        assertTrue(Files.exists(dir.resolve(name)), name);
      }
    }
  }

  @Test
  void aDirectoryFromAnOlderAgentIsTightenedWhenOpened() throws Exception {
    Path dir = initialised();
    Files.setPosixFilePermissions(
        dir.resolve("agent.db"), PosixFilePermissions.fromString("rw-r--r--"));
    Files.setPosixFilePermissions(
        dir.resolve("agent.lock"), PosixFilePermissions.fromString("rw-rw-rw-"));
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    EdgeAgent.open(dir, clock).close();
    assertEquals("rw-------", mode(dir.resolve("agent.db")));
    assertEquals("rw-------", mode(dir.resolve("agent.lock")));
    assertEquals("rwx------", mode(dir));
  }

  @Test
  void aKeyOthersCanReadIsRefusedWithTheFix() throws Exception {
    Path dir = initialised();
    Path key = dir.resolve("device.key");
    Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-r--r--"));
    IOException e = assertThrows(IOException.class, () -> EdgeAgent.open(dir, clock));
    assertTrue(e.getMessage().contains("chmod 600 " + key), e.getMessage());
    assertTrue(e.getMessage().contains("rw-r--r--"), e.getMessage());

    Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw--w----"));
    assertThrows(IOException.class, () -> EdgeAgent.open(dir, clock));

    Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
    EdgeAgent.open(dir, clock).close();
  }
}
