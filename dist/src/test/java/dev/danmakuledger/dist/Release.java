package dev.danmakuledger.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The release archives that {@code mvn -Pdist package} left in this module's target directory, and
 * a way to run what they contain the way an operator would: unpacked somewhere else, with an
 * environment that has no JDK on its PATH and no JAVA_HOME (docs/operations.md, "Install").
 */
final class Release {
  /** Tools the launchers use; the only commands on the PATH the archives' programs get. */
  private static final List<String> TOOLS = List.of("bash", "env", "readlink", "dirname");

  private Release() {}

  /** The archive whose name starts with {@code prefix-VERSION} in the build directory. */
  static Path archive(String prefix) throws IOException {
    Path dir = Path.of(System.getProperty("dist.dir", "target"));
    String start = prefix + "-" + System.getProperty("dist.version", "");
    List<Path> found = new ArrayList<>();
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, start + "*.tar.gz")) {
      files.forEach(found::add);
    }
    assertEquals(1, found.size(), "archives " + start + "*.tar.gz in " + dir + ": " + found);
    return found.get(0);
  }

  /** Unpacks {@code archive} into {@code into}; returns the archive's one top directory. */
  static Path unpack(Path archive, Path into) throws IOException, InterruptedException {
    Files.createDirectories(into);
    Result tar =
        run(into, Map.of("PATH", System.getenv("PATH")), "tar", "-xzf", archive.toString());
    assertEquals(0, tar.exit(), "tar -xzf " + archive + ": " + tar.err());
    List<Path> top = new ArrayList<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(into)) {
      entries.forEach(top::add);
    }
    assertEquals(1, top.size(), "top directories of " + archive + ": " + top);
    return top.get(0);
  }

  /**
   * A directory holding links to the launchers' tools only, for a PATH without {@code java}: the
   * host's {@code /usr/bin}, where a JDK often links {@code java}, is not on it.
   */
  static Path toolsWithoutJava(Path dir) throws IOException, InterruptedException {
    Files.createDirectories(dir);
    for (String tool : TOOLS) {
      Path found = onPath(tool).orElseThrow(() -> new IllegalStateException("no " + tool));
      Files.createSymbolicLink(dir.resolve(tool), found.toRealPath());
    }
    Result java = run(dir, Map.of("PATH", dir.toString()), "bash", "-c", "command -v java");
    assertTrue(java.exit() != 0, "java is on the test PATH " + dir + ": " + java.out());
    return dir;
  }

  private static Optional<Path> onPath(String tool) {
    for (String d : System.getenv("PATH").split(File.pathSeparator)) {
      Path p = Path.of(d, tool);
      if (Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /** Runs a command in {@code dir} with exactly {@code env} as its environment. */
  static Result run(Path dir, Map<String, String> env, String... command)
      throws IOException, InterruptedException {
    Path out = Files.createTempFile("release-out", ".txt");
    Path err = Files.createTempFile("release-err", ".txt");
    try {
      ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile());
      pb.environment().clear();
      pb.environment().putAll(env);
      pb.redirectOutput(out.toFile()).redirectError(err.toFile());
      Process p = pb.start();
      if (!p.waitFor(3, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        throw new IllegalStateException("got no exit after 3 minutes, want one: " + command[0]);
      }
      return new Result(
          p.exitValue(),
          Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  /** What a command printed and how it exited. */
  record Result(int exit, String out, String err) {
    @Override
    public String toString() {
      return "exit " + exit + "\nstdout:\n" + out + "\nstderr:\n" + err;
    }
  }
}
