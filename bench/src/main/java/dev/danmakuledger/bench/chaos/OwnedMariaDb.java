package dev.danmakuledger.bench.chaos;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A MariaDB server the chaos harness owns (so it may SIGKILL and restart it): a fresh data
 * directory made with {@code mariadb-install-db}, and {@code mariadbd} on a free loopback port,
 * root without a password, used by nothing else.
 */
final class OwnedMariaDb {
  private final Child process;
  private final int port;

  private OwnedMariaDb(Child process, int port) {
    this.process = process;
    this.port = port;
  }

  /** Initialises {@code dir} and starts the server on {@code port}. */
  static OwnedMariaDb start(Path dir, int port) throws IOException, InterruptedException {
    Path install = find("mariadb-install-db", "mysql_install_db");
    Path server = find("mariadbd", "mysqld");
    Path data = dir.resolve("data");
    Files.createDirectories(data);
    Process init =
        new ProcessBuilder(
                install.toString(),
                "--no-defaults",
                "--datadir=" + data,
                "--user=" + System.getProperty("user.name"),
                "--auth-root-authentication-method=normal",
                "--skip-test-db")
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("install.log").toFile())
            .start();
    if (!init.waitFor(120, TimeUnit.SECONDS) || init.exitValue() != 0) {
      throw new IOException(
          install + " failed (exit " + init.exitValue() + "); see " + dir.resolve("install.log"));
    }
    Child child =
        new Child(
            "mariadbd",
            List.of(
                server.toString(),
                "--no-defaults",
                "--datadir=" + data,
                "--port=" + port,
                "--bind-address=127.0.0.1",
                "--socket=" + dir.resolve("mariadbd.sock"),
                "--pid-file=" + dir.resolve("mariadbd.pid"),
                "--user=" + System.getProperty("user.name"),
                "--skip-name-resolve",
                "--innodb-buffer-pool-size=64M"),
            dir.resolve("mariadbd.log"));
    OwnedMariaDb db = new OwnedMariaDb(child, port);
    child.start();
    return db;
  }

  /** The server URL for {@code --jdbc}. */
  String url() {
    return "jdbc:mariadb://127.0.0.1:" + port + "/?user=root&password=";
  }

  int port() {
    return port;
  }

  Child process() {
    return process;
  }

  private static Path find(String... names) throws IOException {
    String path = System.getenv("PATH");
    String dirs = (path == null ? "" : path) + File.pathSeparator + "/usr/sbin:/usr/bin";
    for (String name : names) {
      for (String d : dirs.split(File.pathSeparator)) {
        Path p = Path.of(d, name);
        if (!d.isEmpty() && Files.isExecutable(p)) {
          return p;
        }
      }
    }
    throw new IOException(
        "none of " + List.of(names) + " on the PATH: install mariadb-server to use --own-mariadb");
  }
}
