package dev.danmakuledger.bench.chaos;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * An HAProxy a run owns (the chaos run's, the rooms benchmark's with several instances): the
 * configuration of {@link HaproxyConfig} written to the run's directory, checked with {@code
 * haproxy -c}, and {@code haproxy -db -f FILE} started as a child process (foreground, so it dies
 * with the run).
 */
public final class HaproxyBalancer {
  private final Child child;
  private final int port;

  private HaproxyBalancer(Child child, int port) {
    this.child = child;
    this.port = port;
  }

  /** The haproxy executable ({@code $DANMAKU_HAPROXY}, the PATH or /usr/sbin), if installed. */
  public static Optional<Path> executable() {
    return Executables.find("haproxy", "DANMAKU_HAPROXY", List.of("/usr/sbin", "/usr/local/sbin"));
  }

  /** Writes {@code config} into {@code dir}, checks it and starts HAProxy on it. */
  public static HaproxyBalancer start(HaproxyConfig config, Path dir)
      throws IOException, InterruptedException {
    Path binary =
        executable()
            .orElseThrow(
                () -> new IOException("no haproxy executable: install the haproxy package"));
    Files.createDirectories(dir);
    Path file = dir.resolve("haproxy.cfg");
    Files.writeString(file, config.render(), StandardCharsets.UTF_8);
    Process check =
        new ProcessBuilder(binary.toString(), "-c", "-f", file.toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!check.waitFor(30, TimeUnit.SECONDS) || check.exitValue() != 0) {
      throw new IOException("haproxy -c -f " + file + " refused the configuration: " + out.strip());
    }
    Child c =
        new Child(
            "haproxy",
            List.of(binary.toString(), "-db", "-f", file.toString()),
            dir.resolve("haproxy.log"));
    c.start();
    return new HaproxyBalancer(c, config.listenPort());
  }

  public int port() {
    return port;
  }

  boolean alive() {
    return child.alive();
  }

  public void stop() throws InterruptedException {
    child.stop(5);
  }
}
