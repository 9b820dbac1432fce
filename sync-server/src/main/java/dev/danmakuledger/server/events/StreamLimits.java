package dev.danmakuledger.server.events;

import java.time.Duration;
import java.util.Objects;

/**
 * The limits of room streams (docs/sync-server.md, "Room streams"; sizing in docs/operations.md):
 * each subscriber may have at most {@code buffer} messages queued before it is cut off with its
 * resume point; every instance re-reads SQL for its subscribed rooms at least every {@code poll},
 * whatever Redis does; each announcement stream keeps about {@code streamLength} entries. An
 * instance admits at most {@code perInstance} subscribers, {@code perRoom} of one room and {@code
 * perAddress} from one client address; {@code writers} threads write to every subscriber, and
 * {@code shards} announcement streams (one reader thread and one Redis connection each) carry every
 * room's announcements.
 *
 * @param buffer messages queued per subscriber, 1..1,000,000
 * @param poll longest wait between two SQL reads of a subscribed room, 10 ms .. 1 min
 * @param streamLength approximate MAXLEN of an announcement stream, 1..10,000,000
 * @param perInstance subscribers of this instance, 1..1,000,000
 * @param perRoom subscribers of one room on this instance, 1..perInstance
 * @param perAddress subscribers from one client address on this instance, 1..perInstance
 * @param writers threads writing to subscribers, 1..1,024
 * @param shards announcement streams, 1..64
 */
public record StreamLimits(
    int buffer,
    Duration poll,
    long streamLength,
    int perInstance,
    int perRoom,
    int perAddress,
    int writers,
    int shards) {
  /** Subscribers per instance by default. */
  public static final int PER_INSTANCE = 20_000;

  /** Subscribers per room by default. */
  public static final int PER_ROOM = 10_000;

  /** Subscribers per client address by default. */
  public static final int PER_ADDRESS = 256;

  /** Writer threads by default. */
  public static final int WRITERS = 8;

  /** Announcement streams by default. */
  public static final int SHARDS = 4;

  /**
   * Defaults: 2,000 queued messages, a 1 s SQL poll, 10,000 stream entries, 20,000 subscribers,
   * 10,000 per room, 256 per address, 8 writers, 4 announcement streams.
   */
  public static final StreamLimits DEFAULTS =
      new StreamLimits(2_000, Duration.ofSeconds(1), 10_000);

  public StreamLimits {
    Objects.requireNonNull(poll, "poll");
    if (buffer < 1 || buffer > 1_000_000) {
      throw new IllegalArgumentException("buffer: got " + buffer + ", want 1..1000000");
    }
    if (poll.toMillis() < 10 || poll.compareTo(Duration.ofMinutes(1)) > 0) {
      throw new IllegalArgumentException("poll: got " + poll + ", want 10ms..1min");
    }
    if (streamLength < 1 || streamLength > 10_000_000) {
      throw new IllegalArgumentException(
          "streamLength: got " + streamLength + ", want 1..10000000");
    }
    if (perInstance < 1 || perInstance > 1_000_000) {
      throw new IllegalArgumentException("perInstance: got " + perInstance + ", want 1..1000000");
    }
    if (perRoom < 1 || perRoom > perInstance) {
      throw new IllegalArgumentException(
          "perRoom: got " + perRoom + ", want 1.." + perInstance + " (perInstance)");
    }
    if (perAddress < 1 || perAddress > perInstance) {
      throw new IllegalArgumentException(
          "perAddress: got " + perAddress + ", want 1.." + perInstance + " (perInstance)");
    }
    if (writers < 1 || writers > 1_024) {
      throw new IllegalArgumentException("writers: got " + writers + ", want 1..1024");
    }
    if (shards < 1 || shards > 64) {
      throw new IllegalArgumentException("shards: got " + shards + ", want 1..64");
    }
  }

  /** Limits with the default subscriber caps, writers and shards. */
  public StreamLimits(int buffer, Duration poll, long streamLength) {
    this(buffer, poll, streamLength, PER_INSTANCE, PER_ROOM, PER_ADDRESS, WRITERS, SHARDS);
  }
}
