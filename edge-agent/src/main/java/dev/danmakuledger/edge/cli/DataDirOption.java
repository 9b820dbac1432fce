package dev.danmakuledger.edge.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The {@code --data-dir} option every command shares. */
final class DataDirOption {
  @Option(
      names = {"--data-dir", "-d"},
      required = true,
      paramLabel = "DIR",
      description = "The agent's data directory (agent.properties, device.key, agent.db).")
  Path dataDir;
}
