package dev.danmakuledger.server.storage;

import dev.danmakuledger.merkle.hash.Sha256;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The fixed-width column the messages' duplicate guard is a UNIQUE index over (docs/architecture.md
 * §5, "Three duplicate checks", the last guard): the first {@value #BYTES} bytes of SHA-256 of the
 * idempotency key's UTF-8 bytes. An index over 16 bytes is much smaller than one over the keys
 * themselves (up to 255 characters), and it is written at random places as messages arrive, so its
 * size decides how long it stays in the database's memory as the store grows (docs/benchmarks.md,
 * "e2e as the store grows"). Reads by key compare the key itself too; two keys with the same
 * 128-bit hash would be refused as one, which no honest device meets (the chance is about n² /
 * 2^129 for n keys).
 */
public final class KeyHash {
  static final int BYTES = 16;

  private KeyHash() {}

  /** The hash of {@code key}, or null for no key (tombstones). */
  public static byte[] of(String key) {
    if (key == null) {
      return null;
    }
    return Arrays.copyOf(Sha256.fresh().digest(key.getBytes(StandardCharsets.UTF_8)), BYTES);
  }
}
