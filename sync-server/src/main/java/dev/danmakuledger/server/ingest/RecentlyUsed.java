package dev.danmakuledger.server.ingest;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A map in access order that drops its least recently used entry once it holds more than its bound:
 * the per-device memory of the write path. Not thread-safe; its owner locks, because an owner such
 * as {@link RecentDevices} reads an entry and replaces it under one lock. The room log's caches,
 * bounded by their bytes too and locking themselves, use a map of their own ({@code
 * roomlog.LruMap}).
 */
final class RecentlyUsed<K, V> extends LinkedHashMap<K, V> {
  private static final long serialVersionUID = 1L;

  private final int maxEntries;

  /**
   * @throws IllegalArgumentException if {@code maxEntries} is below 1
   */
  RecentlyUsed(int maxEntries) {
    super(16, 0.75f, true);
    if (maxEntries < 1) {
      throw new IllegalArgumentException("maxEntries: got " + maxEntries + ", want >= 1");
    }
    this.maxEntries = maxEntries;
  }

  @Override
  protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
    return size() > maxEntries;
  }
}
