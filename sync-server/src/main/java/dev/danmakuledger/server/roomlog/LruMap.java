package dev.danmakuledger.server.roomlog;

import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.ToLongFunction;

/**
 * A map that keeps its most recently used entries within two bounds, a number of entries and a
 * total weight (the sum of {@code weigher} over its values, taken when a value is put): a put
 * beyond either drops the least recently used entries until both hold, the new one last. A value
 * that alone weighs more than the bound is not kept. Thread-safe.
 */
final class LruMap<K, V> {
  private final LinkedHashMap<K, V> entries = new LinkedHashMap<>(16, 0.75f, true);
  private final Map<K, Long> weights = new HashMap<>();
  private final int maxEntries;
  private final long maxWeight;
  private final ToLongFunction<V> weigher;
  private long weight;

  LruMap(int maxEntries, long maxWeight, ToLongFunction<V> weigher) {
    if (maxEntries < 1) {
      throw new IllegalArgumentException("max entries: got " + maxEntries + ", want >= 1");
    }
    if (maxWeight < 1) {
      throw new IllegalArgumentException("max weight: got " + maxWeight + ", want >= 1");
    }
    this.maxEntries = maxEntries;
    this.maxWeight = maxWeight;
    this.weigher = Objects.requireNonNull(weigher, "weigher");
  }

  /** Takes the value of {@code key} out of the map, or null. */
  synchronized V remove(K key) {
    V v = entries.remove(key);
    Long w = weights.remove(key);
    if (w != null) {
      weight -= w;
    }
    return v;
  }

  /** Puts {@code value} as the most recently used entry, then drops entries beyond the bounds. */
  synchronized void put(K key, V value) {
    remove(key);
    long w = weigher.applyAsLong(value);
    if (w < 0) {
      throw new IllegalArgumentException("weight of " + key + ": got " + w + ", want >= 0");
    }
    entries.put(key, value);
    weights.put(key, w);
    weight += w;
    Iterator<Map.Entry<K, V>> eldest = entries.entrySet().iterator();
    while ((entries.size() > maxEntries || weight > maxWeight) && eldest.hasNext()) {
      K k = eldest.next().getKey();
      eldest.remove();
      weight -= weights.remove(k);
    }
  }

  /** Puts every entry of {@code values}, in its iteration order. */
  synchronized void putAll(Map<K, V> values) {
    values.forEach(this::put);
  }

  synchronized V get(K key) {
    return entries.get(key);
  }

  synchronized int size() {
    return entries.size();
  }

  /** The total weight of the entries held. */
  synchronized long weight() {
    return weight;
  }
}
