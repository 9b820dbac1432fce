package dev.danmakuledger.protocol.id;

import java.time.Instant;

/**
 * A 64-bit, time-ordered message id in the Snowflake layout (docs/architecture.md §5): bit 63 zero,
 * 41 bits of milliseconds since {@link #EPOCH} (2024-01-01T00:00:00Z, good until 2093), 10 bits of
 * node id (leased per server instance), 12 bits of per-millisecond sequence.
 *
 * @param timestampMillis milliseconds since the Unix epoch, in {@code EPOCH .. EPOCH + 2^41 - 1}
 * @param nodeId 0..1023
 * @param sequence 0..4095
 */
public record MessageId(long timestampMillis, int nodeId, int sequence) {
  /** The id epoch, 2024-01-01T00:00:00Z. */
  public static final Instant EPOCH = Instant.parse("2024-01-01T00:00:00Z");

  /** {@link #EPOCH} in milliseconds since the Unix epoch. */
  public static final long EPOCH_MILLIS = EPOCH.toEpochMilli();

  /** Largest time offset from the epoch, 2^41 - 1 ms. */
  public static final long MAX_OFFSET = (1L << 41) - 1;

  /** Largest node id. */
  public static final int MAX_NODE = 1023;

  /** Largest sequence within one millisecond. */
  public static final int MAX_SEQUENCE = 4095;

  private static final int NODE_SHIFT = 12;
  private static final int TIME_SHIFT = 22;

  /** Validates the ranges. */
  public MessageId {
    if (timestampMillis < EPOCH_MILLIS || timestampMillis - EPOCH_MILLIS > MAX_OFFSET) {
      throw new IllegalArgumentException(
          "message id timestamp: got "
              + timestampMillis
              + " ms, want "
              + EPOCH_MILLIS
              + ".."
              + (EPOCH_MILLIS + MAX_OFFSET)
              + " (41 bits after 2024-01-01T00:00:00Z)");
    }
    if (nodeId < 0 || nodeId > MAX_NODE) {
      throw new IllegalArgumentException(
          "message id node: got " + nodeId + ", want 0.." + MAX_NODE);
    }
    if (sequence < 0 || sequence > MAX_SEQUENCE) {
      throw new IllegalArgumentException(
          "message id sequence: got " + sequence + ", want 0.." + MAX_SEQUENCE);
    }
  }

  /** Returns the 63-bit id: time offset, node, sequence. */
  public long encode() {
    return (timestampMillis - EPOCH_MILLIS) << TIME_SHIFT | (long) nodeId << NODE_SHIFT | sequence;
  }

  /**
   * Inverse of {@link #encode()}.
   *
   * @throws IllegalArgumentException if {@code id} is negative
   */
  public static MessageId decode(long id) {
    if (id < 0) {
      throw new IllegalArgumentException("message id: got " + id + ", want >= 0");
    }
    return new MessageId(
        EPOCH_MILLIS + (id >>> TIME_SHIFT),
        (int) (id >>> NODE_SHIFT) & MAX_NODE,
        (int) id & MAX_SEQUENCE);
  }

  /** Returns the creation time. */
  public Instant timestamp() {
    return Instant.ofEpochMilli(timestampMillis);
  }

  /** Returns e.g. {@code 2026-11-30T05:44:14.123Z node 5 seq 17 (id 123456789)}. */
  @Override
  public String toString() {
    return timestamp() + " node " + nodeId + " seq " + sequence + " (id " + encode() + ")";
  }
}
