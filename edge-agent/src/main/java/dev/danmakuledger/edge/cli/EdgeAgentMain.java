package dev.danmakuledger.edge.cli;

import dev.danmakuledger.edge.capture.IdempotencyConflictException;
import dev.danmakuledger.edge.config.NotInitializedException;
import dev.danmakuledger.edge.store.StoreFullException;
import dev.danmakuledger.edge.store.StoreLockedException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.FileAlreadyExistsException;
import java.time.Clock;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * Entry point of {@code bin/edge-agent}: dispatches to the subcommands, maps errors to exit codes.
 */
@Command(
    name = "edge-agent",
    mixinStandardHelpOptions = true,
    version = "edge-agent 0.1.0",
    description = "Offline danmaku capture into a signed, tamper-evident device log.",
    subcommands = {
      InitCommand.class,
      SendCommand.class,
      ImportCommand.class,
      StatusCommand.class,
      VerifyCommand.class,
      PruneCommand.class,
      RunCommand.class,
      EnrollCommand.class,
      SyncCommand.class,
      CommandLine.HelpCommand.class
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:success",
      "1:verification failed, idempotency conflict, or incomplete import",
      "2:usage error or invalid input",
      "3:store full (max-store-bytes reached)",
      "4:another edge-agent owns the data directory",
      "5:data directory not initialised (or already initialised, for init)",
      "6:I/O or store error"
    })
public final class EdgeAgentMain implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  public static void main(String[] args) {
    System.exit(
        execute(
            new PrintWriter(System.out, true),
            new PrintWriter(System.err, true),
            Clock.systemUTC(),
            args));
  }

  /** Runs one command line with the given streams and clock; returns the exit code. */
  static int execute(PrintWriter out, PrintWriter err, Clock clock, String... args) {
    CommandLine cli = new CommandLine(new EdgeAgentMain(), new Factory(clock));
    cli.setOut(out);
    cli.setErr(err);
    cli.setExecutionExceptionHandler(
        (e, commandLine, parseResult) -> {
          commandLine.getErr().println("edge-agent: " + e.getMessage());
          commandLine.getErr().flush();
          return exitCodeOf(e);
        });
    return cli.execute(args);
  }

  static int exitCodeOf(Exception e) {
    if (e instanceof StoreLockedException) {
      return ExitCodes.LOCKED;
    }
    if (e instanceof StoreFullException) {
      return ExitCodes.STORE_FULL;
    }
    if (e instanceof NotInitializedException || e instanceof FileAlreadyExistsException) {
      return ExitCodes.NOT_INITIALIZED;
    }
    if (e instanceof IdempotencyConflictException) {
      return ExitCodes.FAILED;
    }
    if (e instanceof IllegalArgumentException) {
      return ExitCodes.USAGE;
    }
    if (e instanceof IOException) {
      return ExitCodes.IO_ERROR;
    }
    return ExitCodes.IO_ERROR;
  }

  /** Creates commands with the clock injected. */
  private static final class Factory implements CommandLine.IFactory {
    private final Clock clock;

    Factory(Clock clock) {
      this.clock = clock;
    }

    @Override
    public <K> K create(Class<K> cls) throws Exception {
      if (ClockAware.class.isAssignableFrom(cls)) {
        K command = CommandLine.defaultFactory().create(cls);
        ((ClockAware) command).clock(clock);
        return command;
      }
      return CommandLine.defaultFactory().create(cls);
    }
  }

  /** A command that needs the clock. */
  interface ClockAware {
    void clock(Clock clock);
  }
}
