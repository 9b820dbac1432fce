package dev.danmakuledger.server.storage;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLIntegrityConstraintViolationException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;

/**
 * JDBC storage of the sync server (ARCHITECTURE §5–§6): device witness state, device records and
 * proof nodes, numbered room messages with {@code UNIQUE(idempotency_key)} as the last duplicate
 * guard, alerts and counters. The same SQL runs on H2 (MySQL mode) and MariaDB/MySQL.
 *
 * <p>Connection loss and timeouts surface as {@link StorageUnavailableException}; lost races in
 * {@link #commit} as {@link StaleDeviceException}.
 */
public final class LedgerStore {
  /** Most keys per IN (...) lookup. */
  private static final int KEY_CHUNK = 500;

  /** Counter shards; a batch writes the shard of its device. */
  static final int COUNTER_SHARDS = 16;

  private static final String DEVICE_COLUMNS =
      "id, public_key, verifier_key, status, status_reason, verified_size, claimed_size,"
          + " compact_range, root_hash, last_checkpoint, last_receipt, last_checkpoint_at,"
          + " last_receipt_at, last_seen_at, clock_skew_ms, signature_failures, edge_checks,"
          + " edge_maybe, edge_duplicates, edge_false_positives, version, created_at";

  private static final String MESSAGE_COLUMNS =
      "room, seq, message_id, idempotency_key, content_hash, device_id, device_idx, user_id, text,"
          + " playback_ms, mode, color, font_size, hlc, status, reason, version";

  private final DataSource ds;
  private final Clock clock;

  public LedgerStore(Database db, Clock clock) {
    this.ds = db.dataSource();
    this.clock = clock;
  }

  // ---------------------------------------------------------------- devices

  /**
   * Enrols a device. Enrolling the same id with the same key again returns the stored row.
   *
   * @throws DeviceExistsException when the id is enrolled with another key
   */
  public DeviceRow enroll(DeviceRow fresh) throws DeviceExistsException {
    Optional<DeviceRow> existing = device(fresh.id());
    if (existing.isPresent()) {
      return sameKeyOrThrow(existing.get(), fresh);
    }
    String sql =
        "INSERT INTO devices ("
            + DEVICE_COLUMNS
            + ", updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      bindDevice(ps, fresh, fresh.version());
      ps.setLong(23, fresh.createdAt());
      ps.executeUpdate();
      return fresh;
    } catch (SQLException e) {
      if (isUniqueViolation(e)) {
        return sameKeyOrThrow(device(fresh.id()).orElseThrow(), fresh);
      }
      throw failure("enroll " + fresh.id(), e);
    }
  }

  private static DeviceRow sameKeyOrThrow(DeviceRow stored, DeviceRow fresh)
      throws DeviceExistsException {
    if (Arrays.equals(stored.publicKey(), fresh.publicKey())) {
      return stored;
    }
    throw new DeviceExistsException(fresh.id());
  }

  public Optional<DeviceRow> device(String id) {
    return queryOne(
        "SELECT " + DEVICE_COLUMNS + " FROM devices WHERE id = ?",
        ps -> ps.setString(1, id),
        LedgerStore::readDevice);
  }

  public List<DeviceRow> devices() {
    return query(
        "SELECT " + DEVICE_COLUMNS + " FROM devices ORDER BY id",
        ps -> {},
        LedgerStore::readDevice);
  }

  /**
   * Notes that a device presented a validly signed checkpoint of {@code claimedSize}, without
   * changing its verified state.
   */
  public void markSeen(String id, long claimedSize, long at) {
    update(
        "UPDATE devices SET claimed_size = GREATEST(claimed_size, ?), last_seen_at = ? WHERE id = ?",
        ps -> {
          ps.setLong(1, claimedSize);
          ps.setLong(2, at);
          ps.setString(3, id);
        });
  }

  /** Counts a failed checkpoint signature and stores the alert, atomically. */
  public AlertRow recordSignatureFailure(String id, AlertRow alert) {
    return inTransaction(
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement(
                  "UPDATE devices SET signature_failures = signature_failures + 1,"
                      + " last_seen_at = ? WHERE id = ?")) {
            ps.setLong(1, alert.at());
            ps.setString(2, id);
            ps.executeUpdate();
          }
          addCounters(c, Map.of(Counters.SIGNATURE_FAILURES, 1L), shard(id));
          return insertAlert(c, alert);
        });
  }

  /** Quarantines a device and stores the alert, atomically; later batches are refused. */
  public AlertRow quarantine(String id, String reason, Map<String, Long> counters, AlertRow alert) {
    return inTransaction(
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement(
                  "UPDATE devices SET status = ?, status_reason = ?, version = version + 1,"
                      + " updated_at = ? WHERE id = ?")) {
            ps.setString(1, DeviceStatus.QUARANTINED.name());
            ps.setString(2, reason);
            ps.setLong(3, alert.at());
            ps.setString(4, id);
            ps.executeUpdate();
          }
          addCounters(c, counters, shard(id));
          return insertAlert(c, alert);
        });
  }

  // ---------------------------------------------------------------- batches

  /**
   * Commits one verified batch in one transaction: the device row (only if still at {@code
   * expectedVersion}), the records, the proof nodes, the room slots and the counters.
   *
   * @throws StaleDeviceException when the device row moved on, a unique key was taken meanwhile or
   *     the database aborted the transaction to break a deadlock; nothing was written
   */
  public void commit(BatchCommit batch) throws StaleDeviceException {
    DeviceRow d = batch.device();
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      try {
        writeBatch(c, batch);
        c.commit();
      } catch (SQLException | RuntimeException e) {
        rollbackQuietly(c, e);
        throw e;
      } finally {
        c.setAutoCommit(true);
      }
    } catch (StaleRow e) {
      throw new StaleDeviceException(
          d.id(), "device " + d.id() + " changed since version " + batch.expectedVersion(), null);
    } catch (SQLException e) {
      if (isUniqueViolation(e) || isDeadlock(e)) {
        throw new StaleDeviceException(d.id(), "concurrent write: " + e.getMessage(), e);
      }
      throw failure("commit batch of " + d.id(), e);
    }
  }

  private static void rollbackQuietly(Connection c, Exception cause) {
    try {
      c.rollback();
    } catch (SQLException e) {
      cause.addSuppressed(e);
    }
  }

  /** Thrown inside the batch transaction when the optimistic lock fails. */
  private static final class StaleRow extends RuntimeException {
    StaleRow() {
      super(null, null, false, false);
    }
  }

  private void writeBatch(Connection c, BatchCommit batch) throws SQLException {
    DeviceRow d = batch.device();
    try (PreparedStatement ps =
        c.prepareStatement(
            "UPDATE devices SET verified_size = ?, claimed_size = GREATEST(claimed_size, ?),"
                + " compact_range = ?, root_hash = ?, last_checkpoint = ?, last_receipt = ?,"
                + " last_checkpoint_at = ?, last_receipt_at = ?, last_seen_at = ?,"
                + " clock_skew_ms = ?, edge_checks = ?, edge_maybe = ?, edge_duplicates = ?,"
                + " edge_false_positives = ?, version = version + 1, updated_at = ?"
                + " WHERE id = ? AND version = ?")) {
      ps.setLong(1, d.verifiedSize());
      ps.setLong(2, d.claimedSize());
      ps.setBytes(3, d.compactRange());
      ps.setBytes(4, d.rootHash());
      ps.setString(5, d.lastCheckpoint());
      ps.setString(6, d.lastReceipt());
      setLong(ps, 7, d.lastCheckpointAt());
      setLong(ps, 8, d.lastReceiptAt());
      setLong(ps, 9, d.lastSeenAt());
      setLong(ps, 10, d.clockSkewMs());
      ps.setLong(11, d.edge().checks());
      ps.setLong(12, d.edge().maybe());
      ps.setLong(13, d.edge().duplicates());
      ps.setLong(14, d.edge().falsePositives());
      ps.setLong(15, clock.millis());
      ps.setString(16, d.id());
      ps.setLong(17, batch.expectedVersion());
      if (ps.executeUpdate() != 1) {
        throw new StaleRow();
      }
    }
    long now = clock.millis();
    if (!batch.records().isEmpty()) {
      try (PreparedStatement ps =
          c.prepareStatement(
              "INSERT INTO device_records (device_id, idx, idempotency_key, canonical, outcome,"
                  + " room, seq, message_id, original_status, reason, created_at)"
                  + " VALUES (?,?,?,?,?,?,?,?,?,?,?)")) {
        for (DeviceRecordRow r : batch.records()) {
          ps.setString(1, r.deviceId());
          ps.setLong(2, r.index());
          ps.setString(3, r.idempotencyKey());
          ps.setBytes(4, r.canonical());
          ps.setString(5, r.outcome());
          ps.setString(6, r.room());
          setLong(ps, 7, r.seq());
          setLong(ps, 8, r.messageId());
          ps.setString(9, r.originalStatus());
          ps.setString(10, r.reason());
          ps.setLong(11, now);
          ps.addBatch();
        }
        ps.executeBatch();
      }
    }
    if (!batch.nodes().isEmpty()) {
      try (PreparedStatement ps =
          c.prepareStatement(
              "INSERT INTO device_node_blocks (device_id, first_leaf, end_leaf, nodes)"
                  + " VALUES (?,?,?,?)")) {
        ps.setString(1, d.id());
        ps.setLong(2, batch.expectedVerifiedSize());
        ps.setLong(3, d.verifiedSize());
        ps.setBytes(4, NodeBlock.encode(batch.nodes()));
        ps.executeUpdate();
      }
    }
    if (!batch.messages().isEmpty()) {
      insertMessages(c, batch.messages(), now, false);
      ConfirmedCursors.assign(c, batch.messages());
    }
    addCounters(c, batch.counterDeltas(), shard(d.id()));
  }

  /**
   * Inserts room slots as one JDBC batch. With {@code keepExisting} (few rows: sealed gaps) a slot
   * that exists already is left as it is instead of failing, one statement per row, because drivers
   * that rewrite batches into multi-row inserts mangle {@code ON DUPLICATE KEY}.
   */
  private static void insertMessages(
      Connection c, List<MessageRow> rows, long now, boolean keepExisting) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO messages ("
                + MESSAGE_COLUMNS
                + ", created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
                + (keepExisting ? " ON DUPLICATE KEY UPDATE seq = seq" : ""))) {
      for (MessageRow m : rows) {
        ps.setString(1, m.room());
        ps.setLong(2, m.seq());
        setLong(ps, 3, m.messageId());
        ps.setString(4, m.idempotencyKey());
        ps.setString(5, m.contentHash());
        ps.setString(6, m.deviceId());
        setLong(ps, 7, m.deviceIndex());
        ps.setString(8, m.user());
        ps.setString(9, m.text());
        setLong(ps, 10, m.playbackMs());
        ps.setInt(11, m.mode());
        ps.setInt(12, m.color());
        ps.setInt(13, m.fontSize());
        ps.setLong(14, m.hlc());
        ps.setString(15, m.status().name());
        ps.setString(16, m.reason());
        ps.setLong(17, m.version());
        ps.setLong(18, now);
        ps.setLong(19, now);
        if (keepExisting) {
          ps.executeUpdate();
        } else {
          ps.addBatch();
        }
      }
      if (!keepExisting) {
        ps.executeBatch();
      }
    }
  }

  /** Records of a device log with indices in [from, to), in index order. */
  public List<DeviceRecordRow> records(String deviceId, long from, long to) {
    return query(
        "SELECT device_id, idx, idempotency_key, canonical, outcome, room, seq, message_id,"
            + " original_status, reason FROM device_records"
            + " WHERE device_id = ? AND idx >= ? AND idx < ? ORDER BY idx",
        ps -> {
          ps.setString(1, deviceId);
          ps.setLong(2, from);
          ps.setLong(3, to);
        },
        rs ->
            new DeviceRecordRow(
                rs.getString(1),
                rs.getLong(2),
                rs.getString(3),
                rs.getBytes(4),
                rs.getString(5),
                rs.getString(6),
                getLong(rs, 7),
                getLong(rs, 8),
                rs.getString(9),
                rs.getString(10)));
  }

  /**
   * The block of proof nodes written by the batch that appended {@code leafIndex}, or empty when
   * that leaf is not verified.
   */
  public Optional<NodeBlock> nodeBlock(String deviceId, long leafIndex) {
    return queryOne(
            "SELECT first_leaf, end_leaf, nodes FROM device_node_blocks"
                + " WHERE device_id = ? AND first_leaf <= ? ORDER BY first_leaf DESC LIMIT 1",
            ps -> {
              ps.setString(1, deviceId);
              ps.setLong(2, leafIndex);
            },
            rs -> new NodeBlock(rs.getLong(1), rs.getLong(2), NodeBlock.decode(rs.getBytes(3))))
        .filter(b -> leafIndex < b.endLeaf());
  }

  /** A stored perfect-subtree hash of a device log. */
  public Optional<byte[]> nodeHash(String deviceId, int level, long index) {
    long lastLeaf = ((index + 1) << level) - 1;
    return nodeBlock(deviceId, lastLeaf).flatMap(b -> b.hash(level, index));
  }

  // ---------------------------------------------------------------- messages

  /** The stored messages for these keys (absent keys are missing from the map). */
  public Map<String, MessageRow> messagesByKeys(Collection<String> keys) {
    Map<String, MessageRow> found = new HashMap<>();
    List<String> all = new ArrayList<>(new LinkedHashSet<>(keys));
    for (int from = 0; from < all.size(); from += KEY_CHUNK) {
      List<String> chunk = all.subList(from, Math.min(all.size(), from + KEY_CHUNK));
      String marks = String.join(",", Collections.nCopies(chunk.size(), "?"));
      for (MessageRow m :
          query(
              "SELECT "
                  + MESSAGE_COLUMNS
                  + " FROM messages WHERE idempotency_key IN ("
                  + marks
                  + ")",
              ps -> {
                for (int i = 0; i < chunk.size(); i++) {
                  ps.setString(i + 1, chunk.get(i));
                }
              },
              LedgerStore::readMessage)) {
        found.put(m.idempotencyKey(), m);
      }
    }
    return found;
  }

  /** Highest stored sequence number of a room, 0 when it has none. */
  public long maxSeq(String room) {
    return queryOne(
            "SELECT MAX(seq) FROM messages WHERE room = ?",
            ps -> ps.setString(1, room),
            rs -> rs.getLong(1))
        .orElse(0L);
  }

  /**
   * The room's high-water mark for re-seeding a lost Redis counter, after accounting for every
   * number below it: a number missing from SQL was handed out by the Redis that forgot it, for a
   * batch that never committed, so no retry can claim it any more; it becomes a TOMBSTONE. A batch
   * still in flight with such a number loses the unique (room, seq) race and is retried whole.
   *
   * @return the highest seq of the room, 0 when it has none
   */
  public long sealGapsForReseed(String room, String reason) {
    long max = maxSeq(room);
    long count =
        queryOne(
                "SELECT COUNT(*) FROM messages WHERE room = ?",
                ps -> ps.setString(1, room),
                rs -> rs.getLong(1))
            .orElse(0L);
    if (count == max) {
      return max;
    }
    List<long[]> gaps =
        query(
            "SELECT m.seq + 1, (SELECT MIN(n.seq) FROM messages n WHERE n.room = m.room"
                + " AND n.seq > m.seq) FROM messages m WHERE m.room = ? AND m.seq < ?"
                + " AND NOT EXISTS (SELECT 1 FROM messages x WHERE x.room = m.room"
                + " AND x.seq = m.seq + 1)",
            ps -> {
              ps.setString(1, room);
              ps.setLong(2, max);
            },
            rs -> new long[] {rs.getLong(1), rs.getLong(2)});
    long lowest =
        queryOne(
                "SELECT MIN(seq) FROM messages WHERE room = ?",
                ps -> ps.setString(1, room),
                rs -> rs.getLong(1))
            .orElse(1L);
    List<long[]> all = new ArrayList<>(gaps);
    if (lowest > 1) {
      all.add(new long[] {1, lowest});
    }
    List<MessageRow> tombstones = new ArrayList<>();
    for (long[] gap : all) {
      for (long seq = gap[0]; seq < gap[1]; seq++) {
        tombstones.add(MessageRow.tombstone(room, seq, reason));
      }
    }
    if (!tombstones.isEmpty()) {
      inTransaction(
          c -> {
            insertMessages(c, tombstones, clock.millis(), true);
            addCounters(c, Map.of(Counters.TOMBSTONES, (long) tombstones.size()), shard(room));
            return null;
          });
    }
    return max;
  }

  /** Which of these sequence numbers of a room are taken (by a message or a tombstone). */
  public Set<Long> takenSeqs(String room, Collection<Long> seqs) {
    Set<Long> taken = new HashSet<>();
    List<Long> all = new ArrayList<>(new LinkedHashSet<>(seqs));
    for (int from = 0; from < all.size(); from += KEY_CHUNK) {
      List<Long> chunk = all.subList(from, Math.min(all.size(), from + KEY_CHUNK));
      String marks = String.join(",", Collections.nCopies(chunk.size(), "?"));
      taken.addAll(
          query(
              "SELECT seq FROM messages WHERE room = ? AND seq IN (" + marks + ")",
              ps -> {
                ps.setString(1, room);
                for (int i = 0; i < chunk.size(); i++) {
                  ps.setLong(i + 2, chunk.get(i));
                }
              },
              rs -> rs.getLong(1)));
    }
    return taken;
  }

  public Optional<MessageRow> messageByKey(String key) {
    return queryOne(
        "SELECT " + MESSAGE_COLUMNS + " FROM messages WHERE idempotency_key = ?",
        ps -> ps.setString(1, key),
        LedgerStore::readMessage);
  }

  public Optional<MessageRow> messageById(long messageId) {
    return queryOne(
        "SELECT " + MESSAGE_COLUMNS + " FROM messages WHERE message_id = ?",
        ps -> ps.setLong(1, messageId),
        LedgerStore::readMessage);
  }

  public Optional<MessageRow> message(String room, long seq) {
    return queryOne(
        "SELECT " + MESSAGE_COLUMNS + " FROM messages WHERE room = ? AND seq = ?",
        ps -> {
          ps.setString(1, room);
          ps.setLong(2, seq);
        },
        LedgerStore::readMessage);
  }

  /** Slots of a room with seq greater than {@code after}, in seq order, tombstones included. */
  public List<MessageRow> roomPage(String room, long after, int limit) {
    return query(
        "SELECT "
            + MESSAGE_COLUMNS
            + " FROM messages WHERE room = ? AND seq > ? ORDER BY seq LIMIT "
            + positive(limit),
        ps -> {
          ps.setString(1, room);
          ps.setLong(2, after);
        },
        LedgerStore::readMessage);
  }

  /** CONFIRMED messages of a room with seq greater than {@code after}, in seq order. */
  public List<MessageRow> confirmedAfter(String room, long after, int limit) {
    return query(
        "SELECT "
            + MESSAGE_COLUMNS
            + " FROM messages WHERE status = 'CONFIRMED' AND room = ? AND seq > ?"
            + " ORDER BY seq LIMIT "
            + positive(limit),
        ps -> {
          ps.setString(1, room);
          ps.setLong(2, after);
        },
        LedgerStore::readMessage);
  }

  /** Messages held for review, oldest first. */
  public List<MessageRow> pending(int limit) {
    return query(
        "SELECT "
            + MESSAGE_COLUMNS
            + " FROM messages WHERE status = 'PENDING' ORDER BY created_at, room, seq LIMIT "
            + positive(limit),
        ps -> {},
        LedgerStore::readMessage);
  }

  /**
   * Moves a message from {@code from} to {@code to} by compare-and-set on its version.
   *
   * @return the updated row, or empty when no message has this id
   * @throws VersionConflictException when the row is not at {@code expectedVersion} in {@code from}
   */
  public Optional<MessageRow> transition(
      long messageId, MessageStatus from, MessageStatus to, long expectedVersion, String reason)
      throws VersionConflictException {
    int n =
        update(
            "UPDATE messages SET status = ?, reason = ?, version = version + 1, updated_at = ?"
                + " WHERE message_id = ? AND status = ? AND version = ?",
            ps -> {
              ps.setString(1, to.name());
              ps.setString(2, reason);
              ps.setLong(3, clock.millis());
              ps.setLong(4, messageId);
              ps.setString(5, from.name());
              ps.setLong(6, expectedVersion);
            });
    Optional<MessageRow> now = messageById(messageId);
    if (n == 0 && now.isPresent()) {
      throw new VersionConflictException(now.get(), expectedVersion);
    }
    return now;
  }

  /** Per-room counts, rooms in name order. */
  public List<RoomStats> rooms() {
    long minuteAgo = clock.millis() - 60_000;
    return query(
        "SELECT room, MAX(seq),"
            + " SUM(CASE WHEN status = 'TOMBSTONE' THEN 1 ELSE 0 END),"
            + " SUM(CASE WHEN status = 'CONFIRMED' THEN 1 ELSE 0 END),"
            + " SUM(CASE WHEN status = 'PENDING' THEN 1 ELSE 0 END),"
            + " SUM(CASE WHEN status = 'REJECTED' THEN 1 ELSE 0 END),"
            + " SUM(CASE WHEN created_at >= ? AND status <> 'TOMBSTONE' THEN 1 ELSE 0 END)"
            + " FROM messages GROUP BY room ORDER BY room",
        ps -> ps.setLong(1, minuteAgo),
        rs ->
            new RoomStats(
                rs.getString(1),
                rs.getLong(2),
                rs.getLong(3),
                rs.getLong(4),
                rs.getLong(5),
                rs.getLong(6),
                rs.getLong(7)));
  }

  // ---------------------------------------------------------------- alerts and counters

  public AlertRow insertAlert(AlertRow alert) {
    return inTransaction(c -> insertAlert(c, alert));
  }

  private static AlertRow insertAlert(Connection c, AlertRow a) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO alerts (type, severity, device_id, room, message, data_json, at)"
                + " VALUES (?,?,?,?,?,?,?)",
            Statement.RETURN_GENERATED_KEYS)) {
      ps.setString(1, a.type());
      ps.setString(2, a.severity());
      ps.setString(3, a.deviceId());
      ps.setString(4, a.room());
      ps.setString(5, a.message());
      ps.setString(6, a.dataJson());
      ps.setLong(7, a.at());
      ps.executeUpdate();
      try (ResultSet keys = ps.getGeneratedKeys()) {
        long id = keys.next() ? keys.getLong(1) : 0;
        return new AlertRow(
            id, a.type(), a.severity(), a.deviceId(), a.room(), a.message(), a.dataJson(), a.at());
      }
    }
  }

  /** The newest alerts, newest first. */
  public List<AlertRow> alerts(int limit) {
    return query(
        "SELECT id, type, severity, device_id, room, message, data_json, at FROM alerts"
            + " ORDER BY id DESC LIMIT "
            + positive(limit),
        ps -> {},
        rs ->
            new AlertRow(
                rs.getLong(1),
                rs.getString(2),
                rs.getString(3),
                rs.getString(4),
                rs.getString(5),
                rs.getString(6),
                rs.getString(7),
                rs.getLong(8)));
  }

  public long alertCount() {
    return queryOne("SELECT COUNT(*) FROM alerts", ps -> {}, rs -> rs.getLong(1)).orElse(0L);
  }

  /** All counters by name. */
  public Map<String, Long> counters() {
    Map<String, Long> out = new TreeMap<>();
    for (Map.Entry<String, Long> e :
        query(
            "SELECT name, SUM(counter_value) FROM counters GROUP BY name",
            ps -> {},
            rs -> Map.entry(rs.getString(1), rs.getLong(2)))) {
      out.put(e.getKey(), e.getValue());
    }
    return out;
  }

  /** Adds to counters outside a batch (e.g. a refused batch). */
  public void addCounters(Map<String, Long> deltas) {
    int shard = ThreadLocalRandom.current().nextInt(COUNTER_SHARDS);
    inTransaction(
        c -> {
          addCounters(c, deltas, shard);
          return null;
        });
  }

  static int shard(String key) {
    return Math.floorMod(key.hashCode(), COUNTER_SHARDS);
  }

  /** Adds all deltas in one multi-row upsert, rows in name order (no lock-order deadlocks). */
  private static void addCounters(Connection c, Map<String, Long> deltas, int shard)
      throws SQLException {
    Map<String, Long> nonZero = new TreeMap<>();
    deltas.forEach(
        (name, delta) -> {
          if (delta != 0) {
            nonZero.put(name, delta);
          }
        });
    if (nonZero.isEmpty()) {
      return;
    }
    String rows = String.join(",", Collections.nCopies(nonZero.size(), "(?, ?, ?)"));
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO counters (name, shard, counter_value) VALUES "
                + rows
                + " ON DUPLICATE KEY UPDATE counter_value = counter_value + VALUES(counter_value)")) {
      int i = 1;
      for (Map.Entry<String, Long> e : nonZero.entrySet()) {
        ps.setString(i++, e.getKey());
        ps.setInt(i++, shard);
        ps.setLong(i++, e.getValue());
      }
      ps.executeUpdate();
    }
  }

  // ---------------------------------------------------------------- JDBC plumbing

  @FunctionalInterface
  private interface Binder {
    void bind(PreparedStatement ps) throws SQLException;
  }

  @FunctionalInterface
  private interface RowMapper<T> {
    T map(ResultSet rs) throws SQLException;
  }

  @FunctionalInterface
  private interface TxBody<T> {
    T run(Connection c) throws SQLException;
  }

  private <T> List<T> query(String sql, Binder binder, RowMapper<T> mapper) {
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      binder.bind(ps);
      try (ResultSet rs = ps.executeQuery()) {
        List<T> out = new ArrayList<>();
        while (rs.next()) {
          out.add(mapper.map(rs));
        }
        return out;
      }
    } catch (SQLException e) {
      throw failure(sql, e);
    }
  }

  private <T> Optional<T> queryOne(String sql, Binder binder, RowMapper<T> mapper) {
    List<T> rows = query(sql, binder, mapper);
    return rows.isEmpty() ? Optional.empty() : Optional.ofNullable(rows.get(0));
  }

  private int update(String sql, Binder binder) {
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      binder.bind(ps);
      return ps.executeUpdate();
    } catch (SQLException e) {
      throw failure(sql, e);
    }
  }

  private <T> T inTransaction(TxBody<T> body) {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      try {
        T result = body.run(c);
        c.commit();
        return result;
      } catch (SQLException | RuntimeException e) {
        rollbackQuietly(c, e);
        throw e;
      } finally {
        c.setAutoCommit(true);
      }
    } catch (SQLException e) {
      throw failure("transaction", e);
    }
  }

  private static RuntimeException failure(String what, SQLException e) {
    if (isTransient(e)) {
      return new StorageUnavailableException("sql unavailable (" + what + "): " + e, e);
    }
    return new IllegalStateException("sql failed (" + what + "): " + e, e);
  }

  static boolean isTransient(SQLException e) {
    String state = e.getSQLState();
    return e instanceof SQLTransientException
        || e instanceof SQLRecoverableException
        || e instanceof SQLNonTransientConnectionException
        || (state != null && state.startsWith("08"))
        || e.getCause() instanceof java.io.IOException;
  }

  static boolean isUniqueViolation(SQLException e) {
    for (SQLException x = e; x != null; x = x.getNextException()) {
      String state = x.getSQLState();
      if (x instanceof SQLIntegrityConstraintViolationException
          || "23505".equals(state)
          || ("23000".equals(state) && x.getErrorCode() == 1062)) {
        return true;
      }
    }
    return e.getCause() instanceof SQLException cause && cause != e && isUniqueViolation(cause);
  }

  static boolean isDeadlock(SQLException e) {
    String state = e.getSQLState();
    return "40001".equals(state) || e.getErrorCode() == 1213 || e.getErrorCode() == 1205;
  }

  private static String positive(int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit: got " + limit + ", want >= 1");
    }
    return Integer.toString(limit);
  }

  private static void setLong(PreparedStatement ps, int i, Long v) throws SQLException {
    if (v == null) {
      ps.setNull(i, Types.BIGINT);
    } else {
      ps.setLong(i, v);
    }
  }

  private static Long getLong(ResultSet rs, int i) throws SQLException {
    long v = rs.getLong(i);
    return rs.wasNull() ? null : v;
  }

  private static void bindDevice(PreparedStatement ps, DeviceRow d, long version)
      throws SQLException {
    ps.setString(1, d.id());
    ps.setBytes(2, d.publicKey());
    ps.setString(3, d.verifierKey());
    ps.setString(4, d.status().name());
    ps.setString(5, d.statusReason());
    ps.setLong(6, d.verifiedSize());
    ps.setLong(7, d.claimedSize());
    ps.setBytes(8, d.compactRange());
    ps.setBytes(9, d.rootHash());
    ps.setString(10, d.lastCheckpoint());
    ps.setString(11, d.lastReceipt());
    setLong(ps, 12, d.lastCheckpointAt());
    setLong(ps, 13, d.lastReceiptAt());
    setLong(ps, 14, d.lastSeenAt());
    setLong(ps, 15, d.clockSkewMs());
    ps.setLong(16, d.signatureFailures());
    ps.setLong(17, d.edge().checks());
    ps.setLong(18, d.edge().maybe());
    ps.setLong(19, d.edge().duplicates());
    ps.setLong(20, d.edge().falsePositives());
    ps.setLong(21, version);
    ps.setLong(22, d.createdAt());
  }

  private static DeviceRow readDevice(ResultSet rs) throws SQLException {
    return new DeviceRow(
        rs.getString(1),
        rs.getBytes(2),
        rs.getString(3),
        DeviceStatus.valueOf(rs.getString(4)),
        rs.getString(5),
        rs.getLong(6),
        rs.getLong(7),
        rs.getBytes(8),
        rs.getBytes(9),
        rs.getString(10),
        rs.getString(11),
        getLong(rs, 12),
        getLong(rs, 13),
        getLong(rs, 14),
        getLong(rs, 15),
        rs.getLong(16),
        new EdgeCounters(rs.getLong(17), rs.getLong(18), rs.getLong(19), rs.getLong(20)),
        rs.getLong(21),
        rs.getLong(22));
  }

  private static MessageRow readMessage(ResultSet rs) throws SQLException {
    return new MessageRow(
        rs.getString(1),
        rs.getLong(2),
        getLong(rs, 3),
        rs.getString(4),
        rs.getString(5),
        rs.getString(6),
        getLong(rs, 7),
        rs.getString(8),
        rs.getString(9),
        getLong(rs, 10),
        rs.getInt(11),
        rs.getInt(12),
        rs.getInt(13),
        rs.getLong(14),
        MessageStatus.valueOf(rs.getString(15)),
        rs.getString(16),
        rs.getLong(17));
  }
}
