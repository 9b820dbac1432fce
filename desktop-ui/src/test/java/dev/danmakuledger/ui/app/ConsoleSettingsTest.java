package dev.danmakuledger.ui.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.ui.client.Endpoint;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConsoleSettingsTest {
  @TempDir Path dir;

  @Test
  void flagsWinOverTheConfigFile() throws IOException {
    Path token = Files.writeString(dir.resolve("t"), "  secret \n");
    Path config = dir.resolve("console.properties");
    ConsoleSettings.save(config, "http://config:1/", "from-config");
    Endpoint e = ConsoleSettings.resolve("http://flag:2", token, config).orElseThrow();
    assertEquals("http://flag:2/", e.baseUrl().toString());
    assertEquals("secret", e.token());
  }

  @Test
  void savedSettingsAreUsedNextTimeWithAnOwnerOnlyTokenFile() throws IOException {
    Path config = dir.resolve("sub/console.properties");
    ConsoleSettings.save(config, "http://127.0.0.1:8080/", "tok");
    Endpoint e = ConsoleSettings.resolve(null, null, config).orElseThrow();
    assertEquals("tok", e.token());
    assertEquals(
        "rw-------",
        PosixFilePermissions.toString(
            Files.getPosixFilePermissions(dir.resolve("sub/admin.token"))));
  }

  @Test
  void nothingConfiguredIsEmpty() throws IOException {
    assertTrue(ConsoleSettings.resolve(null, null, dir.resolve("absent")).isEmpty());
    assertTrue(ConsoleSettings.resolve("http://x:1", null, dir.resolve("absent")).isEmpty());
  }

  @Test
  void hostileTokenFilesAreRefused() throws IOException {
    Path empty = Files.writeString(dir.resolve("empty"), "\n");
    Path twoLines = Files.writeString(dir.resolve("two"), "a\nb\n");
    Path huge = Files.writeString(dir.resolve("huge"), "x".repeat(5000));
    for (Path p : new Path[] {empty, twoLines, huge}) {
      assertThrows(IOException.class, () -> ConsoleSettings.readToken(p), p.toString());
    }
    Path ok = Files.writeString(dir.resolve("ok"), "tok\n");
    assertThrows(
        IllegalArgumentException.class, () -> ConsoleSettings.resolve("not a url", ok, null));
  }

  @Test
  void viewNamesParseAndExplain() {
    assertEquals(ViewName.INSPECTOR, ViewName.parse(" Inspector "));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> ViewName.parse("graphs"));
    assertEquals(
        "view: got graphs, want one of overview, devices, rooms, review, inspector, alerts,"
            + " instances",
        e.getMessage());
  }
}
