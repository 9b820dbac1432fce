package dev.danmakuledger.server.storage;

import java.time.Clock;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The sync server's SQL storage (docs/architecture.md §5–§6), one object over one database: the
 * focused stores it is made of, and the read and update calls the API, review and enrolment use,
 * each delegating to the store that owns the table. The same SQL runs on H2 (MySQL mode) and
 * MariaDB/MySQL.
 *
 * <p>Connection loss and timeouts surface as {@link StorageUnavailableException}; lost races in
 * {@link #commit} as {@link StaleDeviceException} or {@link SlotTakenException}.
 */
public final class LedgerStore {
  private final Clock clock;
  private final DeviceLogStore deviceLogs;
  private final MessageStore messages;
  private final GapStore gaps;
  private final AlertStore alerts;
  private final CounterStore counters;
  private final BatchWriter batches;

  public LedgerStore(Database db, Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
    Jdbc jdbc = new Jdbc(db.dataSource());
    this.deviceLogs = new DeviceLogStore(jdbc);
    this.messages = new MessageStore(jdbc);
    this.gaps = new GapStore(jdbc, messages);
    this.alerts = new AlertStore(jdbc);
    this.counters = new CounterStore(jdbc);
    this.batches = new BatchWriter(jdbc, clock);
  }

  /** The gap sealer's queries (its own concern: nothing of it is reached through this facade). */
  public GapStore gaps() {
    return gaps;
  }

  /** See {@link DeviceLogStore#enroll}. */
  public DeviceRow enroll(DeviceRow fresh) throws DeviceExistsException {
    return deviceLogs.enroll(fresh);
  }

  public Optional<DeviceRow> device(String id) {
    return deviceLogs.device(id);
  }

  public List<DeviceRow> devices() {
    return deviceLogs.devices();
  }

  /** See {@link DeviceLogStore#markSeen}. */
  public void markSeen(String id, long claimedSize, long at) {
    deviceLogs.markSeen(id, claimedSize, at);
  }

  /** See {@link DeviceLogStore#recordSignatureFailure}. */
  public AlertRow recordSignatureFailure(String id, AlertRow alert) {
    return deviceLogs.recordSignatureFailure(id, alert);
  }

  /** See {@link DeviceLogStore#quarantine}. */
  public AlertRow quarantine(String id, String reason, Map<String, Long> counters, AlertRow alert) {
    return deviceLogs.quarantine(id, reason, counters, alert);
  }

  /** See {@link BatchWriter#commit}. */
  public CommittedBatch commit(BatchCommit batch) throws StaleDeviceException, SlotTakenException {
    return batches.commit(batch);
  }

  /** See {@link BatchWriter#commitTick}. */
  public CommittedTick commitTick(List<BatchCommit> batches)
      throws StaleDeviceException, SlotTakenException {
    return this.batches.commitTick(batches);
  }

  /** Which of {@code seqs} of {@code room} are stored (messages or tombstones). */
  public Set<Long> takenSeqs(String room, Collection<Long> seqs) {
    return messages.takenSeqs(room, seqs);
  }

  /** Records of a device log with indices in [from, to), in index order. */
  public List<DeviceRecordRow> records(String deviceId, long from, long to) {
    return deviceLogs.records(deviceId, from, to);
  }

  /** See {@link DeviceLogStore#nodeBlock}. */
  public Optional<NodeBlock> nodeBlock(String deviceId, long leafIndex) {
    return deviceLogs.nodeBlock(deviceId, leafIndex);
  }

  /** A stored perfect-subtree hash of a device log. */
  public Optional<byte[]> nodeHash(String deviceId, int level, long index) {
    return deviceLogs.nodeHash(deviceId, level, index);
  }

  /** The stored messages for these keys (absent keys are missing from the map). */
  public Map<String, MessageRow> messagesByKeys(Collection<String> keys) {
    return messages.byKeys(keys);
  }

  /** Highest stored sequence number of a room (tombstones included), 0 when it has none. */
  public long maxSeq(String room) {
    return messages.highWater(room);
  }

  /**
   * Highest stored sequence number of each of {@code rooms} (tombstones included), 0 for a room
   * with none; a query for many rooms at once.
   */
  public Map<String, Long> maxSeqs(Collection<String> rooms) {
    return messages.highWaters(rooms);
  }

  public Optional<MessageRow> messageByKey(String key) {
    return messages.byKey(key);
  }

  public Optional<MessageRow> messageById(long messageId) {
    return messages.byId(messageId);
  }

  public Optional<MessageRow> message(String room, long seq) {
    return messages.at(room, seq);
  }

  /** Slots of a room with seq greater than {@code after}, in seq order, tombstones included. */
  public List<MessageRow> roomPage(String room, long after, int limit) {
    return messages.roomPage(room, after, limit);
  }

  /** CONFIRMED messages of a room with seq greater than {@code after}, in seq order. */
  public List<MessageRow> confirmedAfter(String room, long after, int limit) {
    return messages.confirmedAfter(room, after, limit);
  }

  /** Messages held for review, oldest first. */
  public List<MessageRow> pending(int limit) {
    return messages.pending(limit);
  }

  /** Per-room counts, rooms in name order; "recent" is the last minute. */
  public List<RoomStats> rooms() {
    return messages.rooms(clock.millis() - 60_000);
  }

  public AlertRow insertAlert(AlertRow alert) {
    return alerts.insert(alert);
  }

  /** The newest alerts, newest first. */
  public List<AlertRow> alerts(int limit) {
    return alerts.newest(limit);
  }

  public long alertCount() {
    return alerts.count();
  }

  /** All counters by stored name (see {@link Counter}). */
  public Map<String, Long> counters() {
    return counters.counters();
  }

  /** Adds to counters outside a batch (e.g. a refused batch), keyed by stored name. */
  public void addCounters(Map<String, Long> deltas) {
    counters.add(deltas);
  }
}
