package dev.danmakuledger.bench.cli;

import dev.danmakuledger.bench.proofs.ProofBenchmark;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code bin/bench proofs}: see {@link ProofBenchmark}. */
@Command(
    name = "proofs",
    mixinStandardHelpOptions = true,
    description = {
      "Inclusion proofs served over HTTP by the sync server for one large device log (p50/p99,"
          + " each proof verified), next to recomputing the proof from all leaf hashes."
    })
final class ProofsCommand implements Callable<Integer> {
  @Spec CommandLine.Model.CommandSpec spec;
  @Mixin Output output;
  @Mixin Targets targets;

  @Option(
      names = "--leaves",
      defaultValue = "1000000",
      description = "device log size (default ${DEFAULT-VALUE})")
  long leaves;

  @Option(
      names = "--samples",
      defaultValue = "2000",
      description = "proofs fetched from the server (default ${DEFAULT-VALUE})")
  int samples;

  @Option(
      names = "--baseline-samples",
      defaultValue = "20",
      description = "proofs recomputed from all leaves (default ${DEFAULT-VALUE})")
  int baselineSamples;

  @Override
  public Integer call() throws Exception {
    ProofBenchmark.Options o;
    try {
      o = new ProofBenchmark.Options(leaves, samples, baselineSamples, targets.redis, targets.jdbc);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    output.emit(System.out, ProofBenchmark.run(o, System.out));
    return ExitCodes.OK;
  }
}
