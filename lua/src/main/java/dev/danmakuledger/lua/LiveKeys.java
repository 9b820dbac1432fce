package dev.danmakuledger.lua;

/**
 * Keys of the live fan-out beside the scripts' keys (docs/architecture.md §7): the instance
 * registry is one hash in its own slot.
 */
public final class LiveKeys {
  private LiveKeys() {}

  /** The hash of running sync-server instances: one field per instance id. */
  public static String instances() {
    return "{dl:instances}";
  }
}
