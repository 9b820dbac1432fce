package dev.danmakuledger.edge.store;

import java.nio.file.Path;
import java.util.Optional;

/** Another process owns the data directory (holds {@code agent.lock}). */
public final class StoreLockedException extends StoreException {
  private static final long serialVersionUID = 1L;
  private final transient Path dataDir;
  private final String owner;
  private final String apiAddress;

  public StoreLockedException(Path dataDir, String owner, String apiAddress) {
    super(message(dataDir, owner, apiAddress));
    this.dataDir = dataDir;
    this.owner = owner;
    this.apiAddress = apiAddress;
  }

  private static String message(Path dataDir, String owner, String apiAddress) {
    String who = owner == null || owner.isBlank() ? "" : " (pid " + owner + ")";
    String next =
        apiAddress == null || apiAddress.isBlank()
            ? "; stop it first, or run it with `run` and send captures through its local API"
            : "; send captures through its local API at http://" + apiAddress;
    return "another edge-agent owns " + dataDir + who + next;
  }

  public Path dataDir() {
    return dataDir;
  }

  /** The local API address of the owner ("127.0.0.1:7070"), if it runs one. */
  public Optional<String> apiAddress() {
    return Optional.ofNullable(apiAddress).filter(s -> !s.isBlank());
  }

  public Optional<String> owner() {
    return Optional.ofNullable(owner);
  }
}
