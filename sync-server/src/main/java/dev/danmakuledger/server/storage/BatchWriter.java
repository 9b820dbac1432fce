package dev.danmakuledger.server.storage;

import java.sql.SQLException;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;

/**
 * Commits one verified batch in one transaction (docs/architecture.md §4: the new verified size,
 * the records' outcomes and the receipt commit together, optimistically locked on the device row):
 * device row, records, proof nodes, the device's queue report, counters, room slots, then the
 * confirmation cursors. One statement per table, and one read (the reserved cursors): UNIQUE
 * constraints detect every collision, which the caller resolves. The room cursor rows are shared by
 * every writer of a room, so they are locked last, after the room slots are in: the locks other
 * devices queue on are held for one narrow insert and the commit, not for the insert of the slots,
 * which slows down as the store grows.
 */
public final class BatchWriter {
  private final Jdbc jdbc;
  private final Clock clock;

  BatchWriter(Jdbc jdbc, Clock clock) {
    this.jdbc = jdbc;
    this.clock = clock;
  }

  /** What the batch transaction gave out. */
  private record Written(Map<String, CursorRange> confirmed, Optional<AlertRow> queueAlert) {}

  /** Thrown inside the batch transaction when the optimistic lock fails. */
  private static final class StaleRow extends RuntimeException {
    private static final long serialVersionUID = 1L;

    StaleRow() {
      super(null, null, false, false);
    }
  }

  /**
   * Commits the batch.
   *
   * @throws StaleDeviceException when the device row moved on or the database broke a deadlock with
   *     this transaction; nothing was written
   * @throws SlotTakenException when a key, number or message id of the batch's slots is taken;
   *     nothing was written
   */
  public CommittedBatch commit(BatchCommit batch) throws StaleDeviceException, SlotTakenException {
    String id = batch.device().id();
    long now = clock.millis();
    long start = System.nanoTime();
    long[] statements = new long[2];
    try {
      Written written =
          jdbc.inTransactionOrThrow(
              c -> {
                long t0 = System.nanoTime();
                if (!DeviceLogStore.write(c, batch, now)) {
                  throw new StaleRow();
                }
                long t1 = System.nanoTime();
                Optional<AlertRow> queueAlert =
                    batch.queue() == null
                        ? Optional.empty()
                        : DeviceSyncStates.recordIn(c, batch.queue()).newAlert();
                CounterStore.add(c, batch.counterDeltas(), CounterStore.shard(id));
                long t2 = System.nanoTime();
                Map<String, CursorRange> ranges = Map.of();
                if (!batch.messages().isEmpty()) {
                  MessageStore.insert(c, batch.messages(), now);
                  ranges = ConfirmedCursors.assign(c, batch.messages());
                }
                statements[0] = t1 - t0;
                statements[1] = System.nanoTime() - t2;
                return new Written(ranges, queueAlert);
              });
      long total = System.nanoTime() - start;
      return new CommittedBatch(
          written.confirmed(),
          statements[0],
          statements[1],
          total - statements[0] - statements[1],
          written.queueAlert());
    } catch (StaleRow e) {
      throw new StaleDeviceException(
          id, "device " + id + " changed since version " + batch.expectedVersion(), null);
    } catch (SQLException e) {
      if (Jdbc.isUniqueViolation(e)) {
        throw new SlotTakenException("batch of " + id + ": " + e.getMessage(), e);
      }
      if (Jdbc.isDeadlock(e)) {
        throw new StaleDeviceException(id, "deadlock: " + e.getMessage(), e);
      }
      throw Jdbc.failure("commit batch of " + id, e);
    }
  }
}
