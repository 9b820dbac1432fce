package dev.danmakuledger.bench.cli;

import dev.danmakuledger.bench.ingest.BacklogBenchmark;
import dev.danmakuledger.bench.link.LinkProfile;
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

  @Option(
      names = "--link",
      description =
          "drain through a shaped link in this JVM: loopback (the proxy, no limits), venue"
              + " (20 Mbit/s, RTT 30 ms), 4g (5 Mbit/s up, 20 down, RTT 80 ms, drops every ~30 s)"
              + " or satellite (2 Mbit/s, RTT 600 ms); reports bytes a record on the wire against"
              + " the link's capacity instead of the raw-insert baseline")
  String link;

  @Option(
      names = "--window",
      defaultValue = "4",
      description =
          "batches the agent keeps in flight, 1..16, at most the server's window (default"
              + " ${DEFAULT-VALUE}); with --link the same run also drains a second device with"
              + " --window 1 and --no-compress, the agent before compression and batches in"
              + " flight, as the baseline")
  int window;

  @Override
  public Integer call() throws Exception {
    BacklogBenchmark.Options o;
    try {
      o =
          new BacklogBenchmark.Options(
              records,
              rooms,
              agentXmx,
              targets.redis,
              targets.jdbc,
              warmUp.records,
              link == null ? null : LinkProfile.named(link),
              window);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    output.emit(System.out, BacklogBenchmark.run(o, System.out));
    return ExitCodes.OK;
  }
}
