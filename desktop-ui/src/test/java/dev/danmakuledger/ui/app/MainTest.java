package dev.danmakuledger.ui.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The command line refuses bad input before any window opens. */
class MainTest {
  @TempDir Path dir;

  private Result run(String... args) {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream old = System.err;
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      int code = new CommandLine(new Main()).execute(args);
      return new Result(code, err.toString(StandardCharsets.UTF_8));
    } finally {
      System.setErr(old);
    }
  }

  private record Result(int code, String err) {}

  @Test
  void unknownViewIsRefused() {
    Result r = run("--view", "graphs", "--config", dir.resolve("none").toString());
    assertEquals(2, r.code());
    assertTrue(r.err().contains("view: got graphs, want one of overview"), r.err());
  }

  @Test
  void screenshotWithoutAServerIsRefused() {
    Result r =
        run(
            "--screenshot",
            dir.resolve("x.png").toString(),
            "--config",
            dir.resolve("none").toString());
    assertEquals(2, r.code());
    assertTrue(r.err().contains("--screenshot needs --server and --token-file"), r.err());
  }

  @Test
  void unreadableTokenFileIsRefused() throws Exception {
    Path empty = Files.writeString(dir.resolve("token"), "");
    Result r = run("--server", "http://127.0.0.1:1", "--token-file", empty.toString());
    assertEquals(2, r.code());
    assertTrue(r.err().contains("want exactly one non-empty line"), r.err());
  }

  @Test
  void tinyWindowIsRefused() {
    Result r = run("--width", "10", "--config", dir.resolve("none").toString());
    assertEquals(2, r.code());
  }
}
