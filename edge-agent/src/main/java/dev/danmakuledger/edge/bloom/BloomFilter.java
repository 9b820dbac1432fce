package dev.danmakuledger.edge.bloom;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * A classic Bloom filter sized from the expected number of items {@code n} and the target
 * false-positive probability {@code p}: {@code m = -n ln p / (ln 2)^2} bits and {@code k =
 * round(m/n ln 2)} hash functions (Bloom 1970; Broder and Mitzenmacher, "Network Applications of
 * Bloom Filters", §2.1). The k indexes come from one 128-bit hash by double hashing {@code g_i = h1
 * + i h2 mod m} (Kirsch and Mitzenmacher, "Less Hashing, Same Performance", 2006); the 128 bits are
 * the first half of SHA-256, so the filter needs no hashing library and keys chosen by a client
 * cannot aim at particular bits without breaking SHA-256.
 *
 * <p>Not thread-safe.
 */
public final class BloomFilter {
  private static final double LN2 = Math.log(2);
  private static final MessageDigest SHA256_PROTOTYPE = newSha256();

  private final long expectedItems;
  private final double falsePositiveRate;
  private final long bitCount;
  private final int hashCount;
  private final long[] words;
  private final MessageDigest sha256;
  private long items;

  private BloomFilter(long expectedItems, double falsePositiveRate, long[] words, long items) {
    this.expectedItems = expectedItems;
    this.falsePositiveRate = falsePositiveRate;
    this.bitCount = optimalBits(expectedItems, falsePositiveRate);
    this.hashCount = optimalHashes(expectedItems, bitCount);
    int wordCount = Math.toIntExact((bitCount + 63) / 64);
    if (words.length != wordCount) {
      throw new IllegalArgumentException(
          "bloom bit array: got " + words.length + " words, want " + wordCount);
    }
    this.words = words;
    this.items = items;
    this.sha256 = sha256Copy();
  }

  /**
   * Creates an empty filter for {@code expectedItems} items at false-positive rate {@code
   * falsePositiveRate}.
   *
   * @param expectedItems n, at least 1
   * @param falsePositiveRate p, in (0, 1)
   */
  public static BloomFilter create(long expectedItems, double falsePositiveRate) {
    long bits = optimalBits(expectedItems, falsePositiveRate);
    return new BloomFilter(
        expectedItems, falsePositiveRate, new long[Math.toIntExact((bits + 63) / 64)], 0);
  }

  /** The optimal bit count {@code ceil(-n ln p / (ln 2)^2)} for n items at rate p. */
  public static long optimalBits(long expectedItems, double falsePositiveRate) {
    if (expectedItems < 1) {
      throw new IllegalArgumentException("expected items: got " + expectedItems + ", want >= 1");
    }
    if (!(falsePositiveRate > 0 && falsePositiveRate < 1)) {
      throw new IllegalArgumentException(
          "false-positive rate: got " + falsePositiveRate + ", want in (0, 1)");
    }
    double bits = Math.ceil(-expectedItems * Math.log(falsePositiveRate) / (LN2 * LN2));
    if (bits > 64.0 * Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "bloom filter for n=" + expectedItems + ", p=" + falsePositiveRate + " is too large");
    }
    return Math.max(64, (long) bits);
  }

  /** The optimal hash count {@code round(m/n ln 2)}, at least 1. */
  public static int optimalHashes(long expectedItems, long bits) {
    return Math.max(1, (int) Math.round((double) bits / expectedItems * LN2));
  }

  /** The 128-bit hash that places a key: the first 16 bytes of SHA-256 of its UTF-8 bytes. */
  public record Hash(long h1, long h2) {}

  /** The hash of {@code key}, computable on any thread ahead of {@link #put(Hash)}. */
  public static Hash hash(String key) {
    return hash(sha256Copy(), key);
  }

  private static Hash hash(MessageDigest sha256, String key) {
    ByteBuffer buf = ByteBuffer.wrap(sha256.digest(key.getBytes(StandardCharsets.UTF_8)));
    return new Hash(buf.getLong(), buf.getLong());
  }

  /** Adds a key. */
  public void put(String key) {
    put(hash(sha256, key));
  }

  /** Adds the key with hash {@code h}. */
  public void put(Hash h) {
    for (int i = 0; i < hashCount; i++) {
      long bit = Math.floorMod(h.h1() + i * h.h2(), bitCount);
      words[(int) (bit >>> 6)] |= 1L << bit;
    }
    items++;
  }

  /** False means the key was never added; true means it may have been. */
  public boolean mightContain(String key) {
    return mightContain(hash(sha256, key));
  }

  /** As {@link #mightContain(String)} for the key with hash {@code h}. */
  public boolean mightContain(Hash h) {
    for (int i = 0; i < hashCount; i++) {
      long bit = Math.floorMod(h.h1() + i * h.h2(), bitCount);
      if ((words[(int) (bit >>> 6)] & (1L << bit)) == 0) {
        return false;
      }
    }
    return true;
  }

  /** A fresh digest cloned from {@link #SHA256_PROTOTYPE}; cheaper than a provider lookup. */
  private static MessageDigest sha256Copy() {
    try {
      return (MessageDigest) SHA256_PROTOTYPE.clone();
    } catch (CloneNotSupportedException e) {
      return newSha256();
    }
  }

  private static MessageDigest newSha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  }

  public long expectedItems() {
    return expectedItems;
  }

  public double falsePositiveRate() {
    return falsePositiveRate;
  }

  public long bitCount() {
    return bitCount;
  }

  public int hashCount() {
    return hashCount;
  }

  /** Items added (repeats counted). */
  public long items() {
    return items;
  }

  /** Bytes held by the bit array. */
  public long memoryBytes() {
    return (long) words.length * Long.BYTES;
  }

  /** The bit array, for snapshots: {@code (m + 63) / 64} big-endian 64-bit words. */
  public byte[] bitsToBytes() {
    ByteBuffer buf = ByteBuffer.allocate(words.length * Long.BYTES);
    buf.asLongBuffer().put(words);
    return buf.array();
  }

  /**
   * Restores a filter from {@link #bitsToBytes()} and its parameters.
   *
   * @throws IllegalArgumentException if the byte length does not match the size for (n, p)
   */
  public static BloomFilter fromBytes(
      long expectedItems, double falsePositiveRate, long items, byte[] bits) {
    long m = optimalBits(expectedItems, falsePositiveRate);
    long want = (m + 63) / 64 * Long.BYTES;
    if (bits.length != want) {
      throw new IllegalArgumentException(
          "bloom snapshot: got " + bits.length + " bytes, want " + want);
    }
    if (items < 0) {
      throw new IllegalArgumentException("bloom snapshot items: got " + items + ", want >= 0");
    }
    long[] words = new long[bits.length / Long.BYTES];
    ByteBuffer.wrap(bits).asLongBuffer().get(words);
    return new BloomFilter(expectedItems, falsePositiveRate, words, items);
  }
}
