package dev.danmakuledger.protocol.id;

import java.time.Clock;
import java.util.Objects;

/**
 * Issues {@link MessageId}s for one node: strictly increasing, never repeated. When the wall clock
 * goes backwards the generator keeps its last timestamp; when the 4096 sequence numbers of a
 * millisecond are used up it borrows the next millisecond rather than waiting, so ids may run
 * slightly ahead of the wall clock under bursts. Thread-safe.
 */
public final class MessageIdGenerator {
  private final int nodeId;
  private final Clock clock;
  private long lastMillis = Long.MIN_VALUE;
  private int sequence;

  /**
   * Creates a generator for {@code nodeId}.
   *
   * @throws IllegalArgumentException if {@code nodeId} is outside 0..1023
   */
  public MessageIdGenerator(int nodeId, Clock clock) {
    if (nodeId < 0 || nodeId > MessageId.MAX_NODE) {
      throw new IllegalArgumentException(
          "message id node: got " + nodeId + ", want 0.." + MessageId.MAX_NODE);
    }
    this.nodeId = nodeId;
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /**
   * Returns the next id, greater than every id this generator returned before.
   *
   * @throws IllegalStateException if the time is outside the 41-bit range of {@link MessageId}
   */
  public synchronized long next() {
    long wall = clock.millis();
    if (wall > lastMillis) {
      lastMillis = wall;
      sequence = 0;
    } else if (sequence < MessageId.MAX_SEQUENCE) {
      sequence++;
    } else {
      lastMillis++;
      sequence = 0;
    }
    if (lastMillis < MessageId.EPOCH_MILLIS
        || lastMillis - MessageId.EPOCH_MILLIS > MessageId.MAX_OFFSET) {
      throw new IllegalStateException(
          "message id clock: got "
              + lastMillis
              + " ms, want "
              + MessageId.EPOCH_MILLIS
              + ".."
              + (MessageId.EPOCH_MILLIS + MessageId.MAX_OFFSET));
    }
    return new MessageId(lastMillis, nodeId, sequence).encode();
  }

  /** Returns the node id stamped into every id. */
  public int nodeId() {
    return nodeId;
  }
}
