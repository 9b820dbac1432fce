package dev.danmakuledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command-line server as an operator runs it: a separate JVM on embedded defaults prints what
 * it started, writes owner-only tokens, serves, and on SIGTERM drains and exits 0.
 */
final class MainIT {
  @TempDir Path dir;

  @Test
  void startsOnEmbeddedDefaultsAndExitsZeroOnSigterm() throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process p =
        new ProcessBuilder(
                java,
                "-cp",
                System.getProperty("java.class.path"),
                "dev.danmakuledger.server.Main",
                "--data-dir",
                dir.toString(),
                "--port",
                "0")
            .redirectErrorStream(true)
            .start();
    List<String> lines = new ArrayList<>();
    URI base = null;
    try (BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      Pattern http = Pattern.compile("HTTP on (http://\\S+)");
      String line;
      while (base == null && (line = out.readLine()) != null) {
        lines.add(line);
        Matcher m = http.matcher(line);
        if (m.find()) {
          base = URI.create(m.group(1));
        }
      }
      assertTrue(base != null, "no HTTP line in " + lines);
      assertTrue(lines.stream().anyMatch(l -> l.contains("embedded Redis")), lines.toString());
      assertTrue(
          lines.stream().anyMatch(l -> l.contains("embedded H2 database")), lines.toString());
      assertTrue(lines.stream().anyMatch(l -> l.contains("created") && l.contains("admin.token")));
      assertEquals(
          "rw-------",
          PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("admin.token"))));
      assertEquals(
          "rw-------",
          PosixFilePermissions.toString(
              Files.getPosixFilePermissions(dir.resolve("enroll.token"))));
      assertEquals(200, new Api(base, "").get("/readyz").status());

      p.destroy();
      assertTrue(p.waitFor(60, TimeUnit.SECONDS), "server did not stop on SIGTERM");
      assertEquals(0, p.exitValue());
    } finally {
      p.destroyForcibly();
    }
  }
}
