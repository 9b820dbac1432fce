package dev.danmakuledger.server.roomlog;

import java.util.LinkedHashMap;
import java.util.Map;

/** A map in access order that drops its least recently used entry beyond {@code max} entries. */
final class LruMap<K, V> extends LinkedHashMap<K, V> {
  private static final long serialVersionUID = 1L;

  private final int max;

  LruMap(int max) {
    super(16, 0.75f, true);
    if (max < 1) {
      throw new IllegalArgumentException("max: got " + max + ", want >= 1");
    }
    this.max = max;
  }

  @Override
  protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
    return size() > max;
  }
}
