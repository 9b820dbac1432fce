package dev.danmakuledger.server.storage;

import dev.danmakuledger.server.storage.ConfirmedFeed.Confirmed;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What one tick's transaction gave out (docs/architecture.md §5, "Ticks"), and where its time went.
 *
 * @param confirmed each room's newly CONFIRMED messages over every batch of the tick with their
 *     confirmation cursors, in cursor order, rooms in name order
 * @param queueAlerts the STUCK alert each batch's queue report raised, in the order of the batches
 * @param deviceLogNanos the device rows, records and proof nodes statements
 * @param messagesNanos the message rows and the room cursors
 * @param commitNanos the queue reports, the counters, the COMMIT and the round trips around them
 */
public record CommittedTick(
    Map<String, List<Confirmed>> confirmed,
    List<Optional<AlertRow>> queueAlerts,
    long deviceLogNanos,
    long messagesNanos,
    long commitNanos) {
  public CommittedTick {
    confirmed = Collections.unmodifiableMap(new TreeMap<>(confirmed));
    queueAlerts = List.copyOf(queueAlerts);
  }
}
