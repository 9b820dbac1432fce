package dev.danmakuledger.demo.cli;

import dev.danmakuledger.demo.DemoScenario;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code bin/demo}: runs {@link DemoScenario} on embedded defaults, prints the verification report,
 * then opens the operator console on the live server when a display is available. Exits 0 only if
 * every check passed.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "Danmaku Ledger end to end on one machine: a sync server (embedded Redis + H2),",
      "three edge agents capturing the real Bilibili sample with repeats, an offline",
      "agent, lost replies, a Redis wipe and a cloned device; then a verification",
      "report. Exit code 0 = every check passed, 1 = a check failed, 2 = bad usage."
    })
public final class DemoMain implements Callable<Integer> {
  @Option(
      names = "--work-dir",
      paramLabel = "DIR",
      description = "Where the server and agents keep their data (default: a new temp directory).")
  Path workDir;

  @Option(names = "--keep", description = "Keep the work directory afterwards.")
  boolean keep;

  @Option(names = "--headless", description = "Do not open the console, even with a display.")
  boolean headless;

  @Option(
      names = "--offline",
      defaultValue = "PT2S",
      paramLabel = "DURATION",
      description =
          "How long kiosk-c stays offline after the others synced (default: ${DEFAULT-VALUE}).")
  Duration offline;

  @Option(
      names = "--root",
      paramLabel = "DIR",
      description = "The repository root, for bin/console (set by bin/demo).")
  Path root;

  @Spec CommandSpec spec;

  private final PrintStream out;

  /** The console process while it runs, so an interrupted demo can stop it. */
  private volatile Process console;

  DemoMain(PrintStream out) {
    this.out = out;
  }

  public static void main(String[] args) {
    int code = new CommandLine(new DemoMain(System.out)).execute(args);
    System.exit(code);
  }

  @Override
  public Integer call() throws Exception {
    boolean temp = workDir == null;
    Path work = temp ? Files.createTempDirectory("danmaku-demo-") : workDir;
    if (!temp && Files.exists(work.resolve("server"))) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--work-dir " + work + " already holds a demo; pick an empty one");
    }
    out.println("Danmaku Ledger demo; data in " + work);
    long failures;
    DemoScenario demo = new DemoScenario(work, out, Clock.systemUTC(), offline);
    Thread cleanup =
        new Thread(
            () -> {
              Process p = console;
              if (p != null) {
                p.destroy();
              }
              try {
                demo.close();
                if (temp && !keep) {
                  deleteTree(work);
                }
              } catch (IOException e) {
                System.err.println("demo: cleanup: " + e.getMessage());
              }
            },
            "demo-cleanup");
    Runtime.getRuntime().addShutdownHook(cleanup);
    try (demo) {
      failures = demo.run().failures();
      console(demo);
    } finally {
      if (temp && !keep) {
        deleteTree(work);
      }
    }
    out.println(failures == 0 ? "DEMO PASSED" : "DEMO FAILED: " + failures + " check(s) failed");
    return failures == 0 ? 0 : 1;
  }

  private void console(DemoScenario demo) throws IOException, InterruptedException {
    String display = System.getenv("DISPLAY");
    if (headless || display == null || display.isBlank()) {
      out.println(
          headless
              ? "console skipped (--headless)"
              : "console skipped (no DISPLAY); with a display bin/demo opens bin/console here");
      return;
    }
    Path launcher = (root == null ? Path.of(".") : root).resolve("bin").resolve("console");
    if (!Files.isExecutable(launcher)) {
      out.println("console skipped: " + launcher + " not found");
      return;
    }
    out.println(
        "opening the console on " + demo.serverUrl() + "; the server runs until you close it");
    console =
        new ProcessBuilder(
                List.of(
                    launcher.toString(),
                    "--server",
                    demo.serverUrl(),
                    "--token-file",
                    demo.adminTokenFile().toString()))
            .inheritIO()
            .start();
    int code = console.waitFor();
    if (code != 0) {
      out.println("console exited with " + code + " (not a verification failure)");
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(p);
      }
    }
  }
}
