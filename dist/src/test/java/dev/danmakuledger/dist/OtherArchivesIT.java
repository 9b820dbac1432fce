package dev.danmakuledger.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sync-server archive runs on the host's Java found through JAVA_HOME and says what to do
 * without one; the console app image runs on its own runtime (docs/operations.md, "Install").
 */
class OtherArchivesIT {
  @TempDir Path tmp;

  @Test
  void syncServerRunsOnJavaHomeAndExplainsAMissingJava() throws Exception {
    Path server = Release.unpack(Release.archive("danmaku-sync-server"), tmp.resolve("opt"));
    Path tools = Release.toolsWithoutJava(tmp.resolve("tools"));
    assertTrue(Files.isRegularFile(server.resolve("systemd/danmaku-sync-server.service")));
    assertTrue(Files.isRegularFile(server.resolve("config/sync-server.env")));
    String launcher = server.resolve("bin/sync-server").toString();

    Release.Result help =
        Release.run(
            tmp,
            Map.of("PATH", tools.toString(), "JAVA_HOME", System.getProperty("java.home")),
            launcher,
            "--help");
    assertEquals(0, help.exit(), "sync-server --help: " + help);
    assertTrue(help.out().contains("--data-dir"), help.out());

    Release.Result noJava = Release.run(tmp, Map.of("PATH", tools.toString()), launcher, "--help");
    assertEquals(1, noJava.exit(), "sync-server without Java: " + noJava);
    assertTrue(noJava.err().contains("want Java 17 or newer"), noJava.err());
  }

  @Test
  void consoleAppImageRunsOnItsOwnRuntime() throws Exception {
    Path console = Release.unpack(Release.archive("danmaku-console"), tmp.resolve("opt"));
    Path tools = Release.toolsWithoutJava(tmp.resolve("tools"));
    Path launcher = console.resolve("danmaku-console/bin/danmaku-console");
    assertTrue(Files.isExecutable(launcher), launcher.toString());
    String release = Files.readString(console.resolve("danmaku-console/lib/runtime/release"));
    assertTrue(release.contains("javafx.controls"), "JavaFX linked into the runtime:\n" + release);

    Release.Result help =
        Release.run(
            tmp,
            Map.of("PATH", tools.toString(), "HOME", tmp.toString()),
            launcher.toString(),
            "--help");
    assertEquals(0, help.exit(), "danmaku-console --help: " + help);
    assertTrue(help.out().contains("--server"), help.out());
  }
}
