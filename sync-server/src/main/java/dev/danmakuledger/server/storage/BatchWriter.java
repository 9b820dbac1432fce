package dev.danmakuledger.server.storage;

import dev.danmakuledger.server.storage.ConfirmedFeed.Confirmed;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Commits one verified batch in one transaction (docs/architecture.md §4: the new verified size,
 * the records' outcomes and the receipt commit together, optimistically locked on the device row):
 * device row, records, proof nodes, the device's queue report, counters, room slots, then the
 * confirmation cursors. One statement per table, and one read (the reserved cursors): UNIQUE
 * constraints detect every collision, which the caller resolves. The room cursor rows are shared by
 * every writer of a room, so they are locked last, after the room slots are in: the locks other
 * devices queue on are held for one narrow insert and the commit, not for the insert of the slots,
 * which slows down as the store grows.
 *
 * <p>{@link #commitTick} commits the batches of one tick (docs/architecture.md §5, "Ticks") in one
 * transaction: the device rows locked in id order and written with their records and proof nodes in
 * three statements, one counter upsert, one insert of every room slot and one cursor reservation
 * for every room of the tick. A device may have several batches in a tick, each continuing the one
 * before it ("Batches in flight"): its row is then written once per batch, in log order, each
 * update checking the version the one before it left.
 *
 * <p>Either way a transaction writes its message rows, and they take their cursors, in (room, seq)
 * order. Its rows are confirmed at once, so their order within it is free; seq order inserts them
 * in primary-key order and keeps a room's cursors one run ({@link ConfirmedCursors}) where the
 * batches of several devices interleave their numbers, which in device order would close a run (one
 * more row of {@code confirmation_runs}) at every turn.
 */
final class BatchWriter {
  /** The order a transaction writes its message rows in and gives them their cursors. */
  private static final Comparator<MessageRow> KEY_ORDER =
      Comparator.comparing(MessageRow::room).thenComparingLong(MessageRow::seq);

  private final Jdbc jdbc;
  private final Clock clock;

  BatchWriter(Jdbc jdbc, Clock clock) {
    this.jdbc = jdbc;
    this.clock = clock;
  }

  /** What the batch transaction gave out; the alert each batch's queue report raised, in order. */
  private record Written(Map<String, List<Confirmed>> confirmed, List<Optional<AlertRow>> alerts) {}

  /** Thrown inside the batch transaction when the optimistic lock fails. */
  private static final class StaleRow extends RuntimeException {
    private static final long serialVersionUID = 1L;

    final String deviceId;

    StaleRow(String deviceId) {
      super(null, null, false, false);
      this.deviceId = deviceId;
    }
  }

  /**
   * Commits the batches of one tick together, each still optimistically locked on its device row.
   *
   * @param batches a device's several batches in its log order, each starting from the row the one
   *     before it leaves
   * @throws StaleDeviceException when a device row moved on or the database broke a deadlock with
   *     this transaction; nothing was written
   * @throws SlotTakenException when a key, number or message id of a slot is taken; nothing was
   *     written
   */
  public CommittedTick commitTick(List<BatchCommit> batches)
      throws StaleDeviceException, SlotTakenException {
    List<Integer> order = new ArrayList<>(batches.size());
    for (int i = 0; i < batches.size(); i++) {
      order.add(i);
    }
    order.sort(Comparator.comparing(i -> batches.get(i).device().id())); // stable: log order kept
    List<BatchCommit> ordered = new ArrayList<>(batches.size());
    for (int i : order) {
      ordered.add(batches.get(i));
    }
    for (int i = 1; i < ordered.size(); i++) {
      BatchCommit before = ordered.get(i - 1);
      BatchCommit b = ordered.get(i);
      if (b.device().id().equals(before.device().id()) && !b.continues(before)) {
        throw new IllegalArgumentException(
            "tick: a batch of device "
                + b.device().id()
                + " starts at size "
                + b.expectedVerifiedSize()
                + " and version "
                + b.expectedVersion()
                + ", want the "
                + before.device().verifiedSize()
                + " and "
                + before.device().version()
                + " its batch before it leaves");
      }
    }
    long now = clock.millis();
    long start = System.nanoTime();
    long[] statements = new long[2];
    try {
      Written written =
          jdbc.inTransactionOrThrow(
              c -> {
                long t0 = System.nanoTime();
                Map<String, Long> counters = new TreeMap<>();
                List<MessageRow> messages = new ArrayList<>();
                Optional<String> stale = DeviceLogStore.writeTick(c, ordered, now);
                if (stale.isPresent()) {
                  throw new StaleRow(stale.get());
                }
                for (BatchCommit b : ordered) {
                  b.counterDeltas().forEach((k, v) -> counters.merge(k, v, Long::sum));
                  messages.addAll(b.messages());
                }
                long t1 = System.nanoTime();
                List<DeviceSyncStates.Report> reports = new ArrayList<>();
                List<Integer> reporting = new ArrayList<>();
                for (int i = 0; i < ordered.size(); i++) {
                  if (ordered.get(i).queue() != null) {
                    reports.add(ordered.get(i).queue());
                    reporting.add(order.get(i));
                  }
                }
                List<Optional<AlertRow>> alerts =
                    new ArrayList<>(Collections.nCopies(batches.size(), Optional.empty()));
                List<DeviceSyncStates.Recorded> recorded =
                    DeviceSyncStates.recordTickIn(c, reports);
                for (int i = 0; i < recorded.size(); i++) {
                  alerts.set(reporting.get(i), recorded.get(i).newAlert());
                }
                CounterStore.add(
                    c, counters, ThreadLocalRandom.current().nextInt(CounterStore.SHARDS));
                long t2 = System.nanoTime();
                Map<String, List<Confirmed>> ranges = Map.of();
                if (!messages.isEmpty()) {
                  List<MessageRow> rows = inKeyOrder(messages);
                  MessageStore.insert(c, rows, now);
                  ranges = ConfirmedCursors.assign(c, rows);
                }
                statements[0] = t1 - t0;
                statements[1] = System.nanoTime() - t2;
                return new Written(ranges, alerts);
              });
      long total = System.nanoTime() - start;
      return new CommittedTick(
          written.confirmed(),
          written.alerts(),
          statements[0],
          statements[1],
          Math.max(0, total - statements[0] - statements[1]));
    } catch (StaleRow e) {
      throw new StaleDeviceException(
          e.deviceId, "device " + e.deviceId + " changed during a tick", null);
    } catch (SQLException e) {
      if (Jdbc.isUniqueViolation(e)) {
        throw new SlotTakenException(
            "tick of " + batches.size() + " batches: " + e.getMessage(), e);
      }
      if (Jdbc.isDeadlock(e)) {
        throw new StaleDeviceException(
            ordered.get(0).device().id(), "deadlock: " + e.getMessage(), e);
      }
      throw Jdbc.failure("commit tick of " + batches.size() + " batches", e);
    }
  }

  /** {@code rows} in (room, seq) order: the order a transaction writes and confirms them in. */
  private static List<MessageRow> inKeyOrder(List<MessageRow> rows) {
    List<MessageRow> out = new ArrayList<>(rows);
    out.sort(KEY_ORDER);
    return out;
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
                  throw new StaleRow(id);
                }
                long t1 = System.nanoTime();
                Optional<AlertRow> queueAlert =
                    batch.queue() == null
                        ? Optional.empty()
                        : DeviceSyncStates.recordIn(c, batch.queue()).newAlert();
                CounterStore.add(c, batch.counterDeltas(), CounterStore.shard(id));
                long t2 = System.nanoTime();
                Map<String, List<Confirmed>> ranges = Map.of();
                if (!batch.messages().isEmpty()) {
                  List<MessageRow> rows = inKeyOrder(batch.messages());
                  MessageStore.insert(c, rows, now);
                  ranges = ConfirmedCursors.assign(c, rows);
                }
                statements[0] = t1 - t0;
                statements[1] = System.nanoTime() - t2;
                return new Written(ranges, List.of(queueAlert));
              });
      long total = System.nanoTime() - start;
      return new CommittedBatch(
          written.confirmed(),
          statements[0],
          statements[1],
          total - statements[0] - statements[1],
          written.alerts().get(0));
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
