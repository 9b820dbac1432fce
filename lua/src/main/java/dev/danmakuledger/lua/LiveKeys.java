package dev.danmakuledger.lua;

/**
 * Keys of the live fan-out beside the scripts' keys (docs/architecture.md §7): a room's broadcast
 * stream shares the room's hash tag {@code {r:<room>}}, so on a Redis Cluster it lives in the same
 * slot as the room's counter and idempotency keys; the instance registry is one hash in its own
 * slot.
 */
public final class LiveKeys {
  private LiveKeys() {}

  /** The Redis Stream of {@code room}'s newly confirmed messages (1..256 chars, any content). */
  public static String roomStream(String room) {
    return "{r:" + RedisKeys.escape("room", room) + "}:live";
  }

  /** The hash of running sync-server instances: one field per instance id. */
  public static String instances() {
    return "{dl:instances}";
  }
}
