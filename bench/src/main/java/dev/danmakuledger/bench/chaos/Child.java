package dev.danmakuledger.bench.chaos;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A child process the chaos harness owns and may kill: started from a fixed command line (so a
 * restart is the same program on the same port and data), output appended to a log file.
 */
final class Child {
  private final String name;
  private final List<String> command;
  private final Path log;
  private Process process;

  Child(String name, List<String> command, Path log) {
    this.name = name;
    this.command = List.copyOf(command);
    this.log = log;
  }

  String name() {
    return name;
  }

  synchronized void start() throws IOException {
    if (process != null && process.isAlive()) {
      throw new IllegalStateException(name + " is already running as pid " + process.pid());
    }
    process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
  }

  synchronized boolean alive() {
    return process != null && process.isAlive();
  }

  /** The process id of the running process, or -1 before the first start. */
  synchronized long pid() {
    return process == null ? -1 : process.pid();
  }

  /** The last {@code lines} lines of the log, for an error message; empty when unreadable. */
  String logTail(int lines) {
    try {
      List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "";
    }
  }

  /** SIGKILL, and wait until the process is gone. */
  synchronized void kill() throws InterruptedException {
    if (process == null) {
      return;
    }
    process.destroyForcibly();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      throw new IllegalStateException(name + " (pid " + process.pid() + ") survived SIGKILL");
    }
  }

  /** SIGSTOP ({@code stop} true) or SIGCONT. */
  synchronized void signal(boolean stop) throws IOException, InterruptedException {
    if (process == null || !process.isAlive()) {
      return;
    }
    Process kill =
        new ProcessBuilder("kill", stop ? "-STOP" : "-CONT", Long.toString(process.pid()))
            .redirectErrorStream(true)
            .start();
    if (!kill.waitFor(5, TimeUnit.SECONDS) || kill.exitValue() != 0) {
      throw new IOException("kill " + (stop ? "-STOP " : "-CONT ") + process.pid() + " failed");
    }
  }

  /** SIGTERM, waiting up to {@code seconds}; then SIGKILL. */
  synchronized void stop(int seconds) throws InterruptedException {
    if (process == null || !process.isAlive()) {
      return;
    }
    process.destroy();
    if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
      kill();
    }
  }
}
