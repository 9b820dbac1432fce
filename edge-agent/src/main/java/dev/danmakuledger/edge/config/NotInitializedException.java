package dev.danmakuledger.edge.config;

import java.io.IOException;
import java.nio.file.Path;

/** The data directory has no {@code agent.properties}: {@code init} was never run there. */
public final class NotInitializedException extends IOException {
  private static final long serialVersionUID = 1L;

  public NotInitializedException(Path dataDir) {
    super(
        dataDir
            + " is not an edge-agent data directory (no "
            + AgentConfig.FILE_NAME
            + "); run `edge-agent init --data-dir "
            + dataDir
            + " --device-id ID` first");
  }
}
