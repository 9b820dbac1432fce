package dev.danmakuledger.server.storage;

import java.util.Map;
import java.util.TreeMap;

/**
 * What a committed batch transaction gave out, and where its time went.
 *
 * @param confirmed the confirmation cursors of each room's CONFIRMED messages, rooms in name order
 *     (empty when the batch confirmed nothing); a broadcast announces them without reading SQL
 * @param deviceLogNanos the device row, records and proof nodes statements
 * @param messagesNanos the room cursors and the message rows
 * @param commitNanos the counters, the COMMIT and the connection's round trips around them
 */
public record CommittedBatch(
    Map<String, CursorRange> confirmed, long deviceLogNanos, long messagesNanos, long commitNanos) {
  public CommittedBatch {
    confirmed = java.util.Collections.unmodifiableMap(new TreeMap<>(confirmed));
  }
}
