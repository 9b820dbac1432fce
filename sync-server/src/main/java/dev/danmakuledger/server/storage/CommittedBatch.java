package dev.danmakuledger.server.storage;

import dev.danmakuledger.server.storage.ConfirmedFeed.Confirmed;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What a committed batch transaction gave out, and where its time went.
 *
 * @param confirmed each room's newly CONFIRMED messages with their confirmation cursors, in cursor
 *     order, rooms in name order (empty when the batch confirmed nothing); the broadcast offers
 *     them to this instance's subscribers and announces their cursors without reading SQL
 * @param deviceLogNanos the device row, records and proof nodes statements
 * @param messagesNanos the room cursors and the message rows
 * @param commitNanos the queue report, the counters, the COMMIT and the connection's round trips
 *     around them
 * @param queueAlert the STUCK alert the batch's queue report raised (stored with it), to publish
 */
public record CommittedBatch(
    Map<String, List<Confirmed>> confirmed,
    long deviceLogNanos,
    long messagesNanos,
    long commitNanos,
    Optional<AlertRow> queueAlert) {
  public CommittedBatch {
    confirmed = java.util.Collections.unmodifiableMap(new TreeMap<>(confirmed));
    Objects.requireNonNull(queueAlert, "queueAlert");
  }
}
