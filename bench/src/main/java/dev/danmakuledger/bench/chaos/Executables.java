package dev.danmakuledger.bench.chaos;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** Finds the executables of the services a chaos run owns (redis-server, haproxy). */
final class Executables {
  private Executables() {}

  /**
   * {@code $env} when it names an executable file, else {@code name} on the PATH, else in one of
   * {@code extraDirs} (Debian installs haproxy in /usr/sbin, which a user's PATH may lack).
   */
  static Optional<Path> find(String name, String env, List<String> extraDirs) {
    String override = env == null ? null : System.getenv(env);
    if (override != null && Files.isExecutable(Path.of(override))) {
      return Optional.of(Path.of(override));
    }
    String path = System.getenv("PATH");
    if (path != null) {
      for (String dir : path.split(File.pathSeparator)) {
        Path p = Path.of(dir, name);
        if (Files.isExecutable(p)) {
          return Optional.of(p);
        }
      }
    }
    for (String dir : extraDirs) {
      Path p = Path.of(dir, name);
      if (Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }
}
