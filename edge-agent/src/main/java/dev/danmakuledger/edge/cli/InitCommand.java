package dev.danmakuledger.edge.cli;

import dev.danmakuledger.edge.EdgeAgent;
import dev.danmakuledger.edge.bloom.BloomConfig;
import dev.danmakuledger.edge.config.AgentConfig;
import dev.danmakuledger.edge.keys.DeviceIdentity;
import dev.danmakuledger.edge.store.Durability;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code edge-agent init}: settings, device key pair (0600) and an empty store. */
@Command(
    name = "init",
    mixinStandardHelpOptions = true,
    description =
        "Create a data directory: settings, an Ed25519 device key (mode 0600), an empty log.")
final class InitCommand implements Callable<Integer>, EdgeAgentMain.ClockAware {
  @Spec CommandSpec spec;
  @Mixin DataDirOption dir;

  @Option(
      names = "--device-id",
      required = true,
      paramLabel = "ID",
      description = "This device's id, 1..64 of [A-Za-z0-9_-].")
  String deviceId;

  @Option(
      names = "--bloom-expected",
      defaultValue = "200000",
      paramLabel = "N",
      description = "Keys per Bloom generation (default: ${DEFAULT-VALUE}).")
  long bloomExpected;

  @Option(
      names = "--bloom-fpp",
      defaultValue = "0.001",
      paramLabel = "P",
      description = "Target Bloom false-positive rate (default: ${DEFAULT-VALUE}).")
  double bloomFpp;

  @Option(
      names = "--bloom-window",
      defaultValue = "P1D",
      paramLabel = "DURATION",
      description =
          "Longest a Bloom generation stays current, ISO-8601 (default: ${DEFAULT-VALUE}).")
  Duration bloomWindow;

  @Option(
      names = "--max-store-bytes",
      defaultValue = "1073741824",
      paramLabel = "BYTES",
      description = "Refuse captures once the store reaches this size (default: ${DEFAULT-VALUE}).")
  long maxStoreBytes;

  @Option(
      names = "--durability",
      defaultValue = "FULL",
      paramLabel = "MODE",
      description =
          "SQLite synchronous mode: FULL (fsync per commit) or NORMAL (default: ${DEFAULT-VALUE}).")
  Durability durability;

  @Option(
      names = "--retention",
      defaultValue = "PT0S",
      paramLabel = "DURATION",
      description =
          "Prune records older than this (ISO-8601) once a server receipt and a final outcome"
              + " cover them; PT0S keeps them forever (default: ${DEFAULT-VALUE}).")
  Duration retention;

  private Clock clock;

  @Override
  public void clock(Clock clock) {
    this.clock = clock;
  }

  @Override
  public Integer call() throws Exception {
    AgentConfig config =
        new AgentConfig(
            deviceId,
            new BloomConfig(bloomExpected, bloomFpp, bloomWindow),
            maxStoreBytes,
            durability,
            retention);
    DeviceIdentity identity = EdgeAgent.initialise(dir.dataDir, config, clock);
    spec.commandLine()
        .getOut()
        .printf(
            "initialised %s for device %s%nverifier key: %s%n",
            dir.dataDir, deviceId, identity.signer().verifierKey());
    return ExitCodes.OK;
  }
}
