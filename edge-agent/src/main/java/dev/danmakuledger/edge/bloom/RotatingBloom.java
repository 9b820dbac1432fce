package dev.danmakuledger.edge.bloom;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Two Bloom generations, current and previous, so memory stays bounded however long the agent runs
 * (docs/architecture.md §5, check 1). Keys go into the current generation; a query asks both. The
 * current generation becomes the previous one (and the old previous one is dropped) when it holds
 * {@code expectedItems} keys or its time window has ended, whichever comes first.
 *
 * <p>Each generation is sized for {@code (n, p/2)}: a query can be a false positive in either of
 * the two, so the combined rate stays below {@code 1 - (1 - p/2)^2 < p}. Keys older than two
 * generations are forgotten; callers must treat "not seen" from this filter as "not seen recently"
 * and keep an exact last guard (the store's UNIQUE index).
 *
 * <p>Not thread-safe: the capture writer thread owns it.
 */
public final class RotatingBloom {
  private final BloomConfig config;
  private final Clock clock;
  private BloomFilter current;
  private long currentStartedAt;
  private BloomFilter previous;
  private long rotations;

  private RotatingBloom(
      BloomConfig config,
      Clock clock,
      BloomFilter current,
      long currentStartedAt,
      BloomFilter previous,
      long rotations) {
    this.config = config;
    this.clock = clock;
    this.current = current;
    this.currentStartedAt = currentStartedAt;
    this.previous = previous;
    this.rotations = rotations;
  }

  /** An empty filter whose first window starts now. */
  public static RotatingBloom create(BloomConfig config, Clock clock) {
    return new RotatingBloom(config, clock, config.newGeneration(), clock.millis(), null, 0);
  }

  /**
   * Restores a filter from a snapshot taken with the same configuration.
   *
   * @throws IllegalArgumentException if the snapshot was taken with a different (n, p)
   */
  public static RotatingBloom restore(BloomConfig config, Clock clock, BloomSnapshot snapshot) {
    if (snapshot.expectedItems() != config.expectedItems()
        || snapshot.falsePositiveRate() != config.falsePositiveRate()) {
      throw new IllegalArgumentException(
          "bloom snapshot for n="
              + snapshot.expectedItems()
              + ", p="
              + snapshot.falsePositiveRate()
              + ": got that, want n="
              + config.expectedItems()
              + ", p="
              + config.falsePositiveRate());
    }
    double perGeneration = config.perGenerationRate();
    BloomFilter current =
        BloomFilter.fromBytes(
            config.expectedItems(), perGeneration, snapshot.currentItems(), snapshot.currentBits());
    BloomFilter previous =
        snapshot.previousBits() == null
            ? null
            : BloomFilter.fromBytes(
                config.expectedItems(),
                perGeneration,
                snapshot.previousItems(),
                snapshot.previousBits());
    return new RotatingBloom(
        config, clock, current, snapshot.currentStartedAt(), previous, snapshot.rotations());
  }

  /** False means the key was not added in the current or the previous generation. */
  public boolean mightContain(String key) {
    return mightContain(BloomFilter.hash(key));
  }

  /** As {@link #mightContain(String)} for a key hashed with {@link BloomFilter#hash}. */
  public boolean mightContain(BloomFilter.Hash h) {
    return current.mightContain(h) || (previous != null && previous.mightContain(h));
  }

  /** Adds a key to the current generation, rotating first if that generation is full or expired. */
  public void put(String key) {
    put(BloomFilter.hash(key));
  }

  /** As {@link #put(String)} for a key hashed with {@link BloomFilter#hash}. */
  public void put(BloomFilter.Hash h) {
    rotateIfDue();
    current.put(h);
  }

  /** Rotates if the current generation holds n items or its window has ended. */
  public boolean rotateIfDue() {
    long now = clock.millis();
    boolean full = current.items() >= config.expectedItems();
    boolean expired = now - currentStartedAt >= config.window().toMillis();
    if (!full && !expired) {
      return false;
    }
    previous = current;
    current = config.newGeneration();
    currentStartedAt = now;
    rotations++;
    return true;
  }

  public BloomConfig config() {
    return config;
  }

  public long rotations() {
    return rotations;
  }

  public long currentItems() {
    return current.items();
  }

  public Optional<Long> previousItems() {
    return previous == null ? Optional.empty() : Optional.of(previous.items());
  }

  public long currentStartedAt() {
    return currentStartedAt;
  }

  /** Bytes held by the bit arrays of both generations. */
  public long memoryBytes() {
    return current.memoryBytes() + (previous == null ? 0 : previous.memoryBytes());
  }

  /** The per-generation filters, current first. */
  List<BloomFilter> generations() {
    List<BloomFilter> out = new ArrayList<>();
    out.add(current);
    if (previous != null) {
      out.add(previous);
    }
    return out;
  }

  /** A copy of the state for {@link #restore}; {@code coveredSize} is the log size it reflects. */
  public BloomSnapshot snapshot(long coveredSize) {
    return new BloomSnapshot(
        config.expectedItems(),
        config.falsePositiveRate(),
        coveredSize,
        currentStartedAt,
        rotations,
        current.items(),
        current.bitsToBytes(),
        previous == null ? 0 : previous.items(),
        previous == null ? null : previous.bitsToBytes());
  }

  /** The configured window length. */
  public Duration window() {
    return config.window();
  }
}
