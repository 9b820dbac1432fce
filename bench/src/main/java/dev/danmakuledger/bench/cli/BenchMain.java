package dev.danmakuledger.bench.cli;

import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * Entry point of {@code bin/bench} (docs/benchmarks.md): benchmarks that print every figure next to
 * a baseline measured in the same run, and the fault-injection ({@code chaos}) and {@code tamper}
 * runs that exit non-zero on any violation.
 */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    version = "bench 0.1.0",
    description = {
      "Danmaku Ledger benchmarks and fault-injection runs. Each benchmark prints the machine, a"
          + " table of (ours, baseline, ratio) rows measured in one run, and writes JSON with"
          + " --json FILE."
    },
    subcommands = {
      E2eCommand.class,
      BacklogCommand.class,
      ProofsCommand.class,
      RedisCommand.class,
      EdgeCommand.class,
      MerkleCommand.class,
      ChaosCommand.class,
      TamperCommand.class,
      LiveCommand.class,
      KafkaCommand.class,
      KafkaCheckCommand.class,
      RoomsCommand.class,
      CommandLine.HelpCommand.class
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:success",
      "1:a check failed (chaos violation, tamper attack not caught)",
      "2:usage error or invalid option value",
      "3:the run could not complete (service unreachable, I/O error)"
    })
public final class BenchMain implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  public static void main(String[] args) {
    System.setProperty("java.awt.headless", "true");
    System.exit(
        execute(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args));
  }

  /** Runs one command line with the given streams; returns the exit code. */
  static int execute(PrintWriter out, PrintWriter err, String... args) {
    CommandLine cli = new CommandLine(new BenchMain());
    cli.setOut(out);
    cli.setErr(err);
    cli.setExecutionExceptionHandler(
        (e, commandLine, parseResult) -> {
          commandLine.getErr().println("bench " + commandLine.getCommandName() + ": " + e);
          commandLine.getErr().flush();
          return ExitCodes.COULD_NOT_RUN;
        });
    return cli.execute(args);
  }
}
