package dev.danmakuledger.server.storage;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What a committed batch transaction gave out, and where its time went.
 *
 * @param confirmed the confirmation cursors of each room's CONFIRMED messages, rooms in name order
 *     (empty when the batch confirmed nothing); a broadcast announces them without reading SQL
 * @param deviceLogNanos the device row, records and proof nodes statements
 * @param messagesNanos the room cursors and the message rows
 * @param commitNanos the queue report, the counters, the COMMIT and the connection's round trips
 *     around them
 * @param queueAlert the STUCK alert the batch's queue report raised (stored with it), to publish
 */
public record CommittedBatch(
    Map<String, CursorRange> confirmed,
    long deviceLogNanos,
    long messagesNanos,
    long commitNanos,
    Optional<AlertRow> queueAlert) {
  public CommittedBatch {
    confirmed = java.util.Collections.unmodifiableMap(new TreeMap<>(confirmed));
    Objects.requireNonNull(queueAlert, "queueAlert");
  }
}
