package dev.danmakuledger.demo.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code bin/demo}'s command line refuses what it cannot run, with picocli's usage exit code. */
class DemoMainTest {
  @TempDir Path tmp;

  @Test
  void aWorkDirThatAlreadyHoldsADemoIsRefused() throws Exception {
    Files.createDirectories(tmp.resolve("server"));
    StringWriter err = new StringWriter();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int code =
        new CommandLine(new DemoMain(new PrintStream(out, true, StandardCharsets.UTF_8)))
            .setErr(new PrintWriter(err))
            .execute("--headless", "--work-dir", tmp.toString());
    assertEquals(2, code);
    assertTrue(err.toString().contains("already holds a demo"), err.toString());
  }

  @Test
  void anUnreadableOfflineDurationIsRefused() {
    StringWriter err = new StringWriter();
    int code =
        new CommandLine(new DemoMain(new PrintStream(new ByteArrayOutputStream())))
            .setErr(new PrintWriter(err))
            .execute("--offline", "two seconds");
    assertEquals(2, code);
    assertTrue(err.toString().contains("--offline"), err.toString());
  }
}
