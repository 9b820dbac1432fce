package dev.danmakuledger.protocol.record;

import java.nio.ByteBuffer;
import java.security.SecureRandom;

/**
 * The per-record random value of a canonical record version 2 (docs/canonical-record.md, "Version
 * 2: blinded leaves"): 128 bits from a CSPRNG at capture, committed to by the device log's leaf
 * hash and never published by the room log, so a public leaf hash confirms no guess of a held
 * record's text.
 *
 * @param high the first 8 bytes, big-endian
 * @param low the last 8 bytes, big-endian
 */
public record Blind(long high, long low) {
  /** Length of the encoding in bytes. */
  public static final int BYTES = 16;

  /**
   * A fresh value: {@value #BYTES} bytes from one {@link SecureRandom#nextBytes} call of {@code
   * random} (a {@link SecureRandom} in production), read as {@link #of}. One call, not two {@code
   * nextLong}s: each {@code nextLong} is two generator calls, and every call of the platform's
   * default generator takes its lock and mixes in fresh bytes, once per capture on the capture
   * path.
   */
  public static Blind random(SecureRandom random) {
    byte[] bytes = new byte[BYTES];
    random.nextBytes(bytes);
    return of(bytes);
  }

  /** The value of 16 bytes, big-endian. */
  public static Blind of(byte[] bytes) {
    if (bytes == null || bytes.length != BYTES) {
      throw new IllegalArgumentException(
          "blind: got " + (bytes == null ? "null" : bytes.length + " bytes") + ", want " + BYTES);
    }
    ByteBuffer b = ByteBuffer.wrap(bytes);
    return new Blind(b.getLong(), b.getLong());
  }

  /** The 16 bytes, big-endian. */
  public byte[] bytes() {
    return ByteBuffer.allocate(BYTES).putLong(high).putLong(low).array();
  }

  @Override
  public String toString() {
    return "Blind[hidden]";
  }
}
