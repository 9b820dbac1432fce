package dev.danmakuledger.bench.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code bin/bench edge}: issue 4's capture benchmark. */
@Command(
    name = "edge",
    mixinStandardHelpOptions = true,
    description = {
      "Agent bulk capture (Bloom + SQLite + Merkle + signature) next to a raw sqlite-jdbc"
          + " batched insert of the same rows with the same durability."
    })
final class EdgeCommand implements Callable<Integer> {
  @Mixin Output output;

  @Override
  public Integer call() throws Exception {
    return ExitCodes.COULD_NOT_RUN;
  }
}
