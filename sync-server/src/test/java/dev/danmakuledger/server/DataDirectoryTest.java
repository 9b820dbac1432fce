package dev.danmakuledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The data directory keeps its secrets owner-only (docs/security.md, "Files and secrets"). */
final class DataDirectoryTest {
  @TempDir Path tmp;

  static String mode(Path p) throws IOException {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
  }

  @Test
  void aNewDirectoryIsOwnerOnlyAndSoAreItsSecrets() throws IOException {
    Path dir = tmp.resolve("data");
    DataDirectory d = DataDirectory.open(dir, new SecureRandom());
    assertEquals("rwx------", mode(dir));
    for (String f :
        new String[] {
          "enroll.token",
          "admin.token",
          "server.key",
          "server-log.key",
          "server-cosigner.key",
          "redis.password"
        }) {
      assertEquals("rw-------", mode(dir.resolve(f)), f);
    }
    assertEquals(6, d.created().size());
    assertTrue(d.redisPassword().length() >= 40, d.redisPassword());
    assertEquals(
        d.redisPassword(), DataDirectory.open(dir, new SecureRandom()).redisPassword(), "kept");
  }

  @Test
  void theLogAndCosignerKeysAreNamedAfterTheServerAndKeptAcrossStarts() throws IOException {
    Path dir = tmp.resolve("keys");
    DataDirectory first = DataDirectory.open(dir, "edge-eu-1", new SecureRandom());
    assertEquals("danmaku-ledger/server-log/edge-eu-1", first.logSigner().name());
    assertEquals("danmaku-ledger/server/edge-eu-1", first.cosigner().name());
    assertTrue(first.cosigner().verifierKey().startsWith("danmaku-ledger/server/edge-eu-1+"));
    DataDirectory again = DataDirectory.open(dir, "renamed", new SecureRandom());
    assertEquals(first.logSigner().verifierKey(), again.logSigner().verifierKey(), "kept");
    assertEquals(first.cosigner().verifierKey(), again.cosigner().verifierKey(), "kept");
    assertTrue(again.created().isEmpty());
  }

  @Test
  void anExistingDirectoryOpenToOthersIsRestrictedToTheOwner() throws IOException {
    Path dir = Files.createDirectory(tmp.resolve("open"));
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    DataDirectory.open(dir, new SecureRandom());
    assertEquals("rwx------", mode(dir));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "enroll.token",
        "admin.token",
        "server.key",
        "server-log.key",
        "server-cosigner.key",
        "redis.password"
      })
  void aSecretReadableByOthersIsRefusedWithTheFix(String name) throws IOException {
    Path dir = tmp.resolve("d-" + name);
    DataDirectory.open(dir, new SecureRandom());
    Path file = dir.resolve(name);
    String before = Files.readString(file);
    for (String loose : new String[] {"rw-r--r--", "rw-r-----", "rw----r--", "rw--w----"}) {
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(loose));
      IllegalStateException e =
          assertThrows(
              IllegalStateException.class, () -> DataDirectory.open(dir, new SecureRandom()));
      assertTrue(e.getMessage().contains("chmod 600 " + file), e.getMessage());
      assertTrue(e.getMessage().contains(loose), e.getMessage());
      assertEquals(before, Files.readString(file), "nothing rewritten");
    }
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    DataDirectory.open(dir, new SecureRandom());
  }

  @Test
  void databaseFilesAreRestrictedToTheOwner() throws IOException {
    Path dir = tmp.resolve("db-test");
    DataDirectory d = DataDirectory.open(dir, new SecureRandom());
    Path db = d.databaseDirectory();
    assertEquals("rwx------", mode(db));
    Path file = Files.writeString(db.resolve("ledger.mv.db"), "x");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
    d.restrictDatabaseFiles();
    assertEquals("rw-------", mode(file));
  }
}
