package dev.danmakuledger.bench.cli;

import dev.danmakuledger.bench.ingest.BacklogBenchmark;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code bin/bench backlog}: see {@link BacklogBenchmark}. */
@Command(
    name = "backlog",
    mixinStandardHelpOptions = true,
    description = {
      "One device with a captured backlog drains it into the sync server (in this JVM) with the"
          + " real sync client in a JVM of its own, next to the same rows as batched multi-row"
          + " INSERTs over one connection into the same database in the same run."
    })
final class BacklogCommand implements Callable<Integer> {
  @Spec CommandLine.Model.CommandSpec spec;
  @Mixin Output output;
  @Mixin Targets targets;
  @Mixin WarmUp warmUp;

  @Option(
      names = "--records",
      defaultValue = "300000",
      description = "messages the device captured (default ${DEFAULT-VALUE})")
  int records;

  @Option(names = "--rooms", defaultValue = "16", description = "rooms (default 16)")
  int rooms;

  @Option(
      names = "--agent-xmx",
      defaultValue = "512m",
      description = "-Xmx of the agent's JVM (default ${DEFAULT-VALUE})")
  String agentXmx;

  @Override
  public Integer call() throws Exception {
    BacklogBenchmark.Options o;
    try {
      o =
          new BacklogBenchmark.Options(
              records, rooms, agentXmx, targets.redis, targets.jdbc, warmUp.records);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    output.emit(System.out, BacklogBenchmark.run(o, System.out));
    return ExitCodes.OK;
  }
}
