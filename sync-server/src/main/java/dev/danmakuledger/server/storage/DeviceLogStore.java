package dev.danmakuledger.server.storage;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The server's witness state of every device log (docs/architecture.md §4): device rows (verified
 * size, compact range, last checkpoint and receipt), the records with the outcomes they got (in
 * bundles of consecutive records, {@link DeviceBundles}), and the blocks of proof nodes each
 * verified batch completed.
 */
final class DeviceLogStore {
  static final String DEVICE_COLUMNS =
      "id, public_key, verifier_key, status, status_reason, verified_size, claimed_size,"
          + " compact_range, root_hash, last_checkpoint, last_receipt, last_checkpoint_at,"
          + " last_receipt_at, last_seen_at, clock_skew_ms, signature_failures, edge_checks,"
          + " edge_maybe, edge_duplicates, edge_false_positives, version, created_at";

  private final Jdbc jdbc;

  DeviceLogStore(Jdbc jdbc) {
    this.jdbc = jdbc;
  }

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
    try (Connection c = jdbc.connection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      bindDevice(ps, fresh);
      ps.setLong(23, fresh.createdAt());
      ps.executeUpdate();
      return fresh;
    } catch (SQLException e) {
      if (Jdbc.isUniqueViolation(e)) {
        return sameKeyOrThrow(device(fresh.id()).orElseThrow(), fresh);
      }
      throw Jdbc.failure("enroll " + fresh.id(), e);
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
    return jdbc.queryOne(
        "SELECT " + DEVICE_COLUMNS + " FROM devices WHERE id = ?",
        ps -> ps.setString(1, id),
        DeviceLogStore::readDevice);
  }

  public List<DeviceRow> devices() {
    return jdbc.query(
        "SELECT " + DEVICE_COLUMNS + " FROM devices ORDER BY id",
        ps -> {},
        DeviceLogStore::readDevice);
  }

  /**
   * Notes that a device presented a validly signed checkpoint of {@code claimedSize}, without
   * changing its verified state.
   */
  public void markSeen(String id, long claimedSize, long at) {
    jdbc.update(
        "UPDATE devices SET claimed_size = GREATEST(claimed_size, ?), last_seen_at = ? WHERE id = ?",
        ps -> {
          ps.setLong(1, claimedSize);
          ps.setLong(2, at);
          ps.setString(3, id);
        });
  }

  /** Counts a failed checkpoint signature and stores the alert, atomically. */
  public AlertRow recordSignatureFailure(String id, AlertRow alert) {
    return jdbc.inTransaction(
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement(
                  "UPDATE devices SET signature_failures = signature_failures + 1,"
                      + " last_seen_at = ? WHERE id = ?")) {
            ps.setLong(1, alert.at());
            ps.setString(2, id);
            ps.executeUpdate();
          }
          CounterStore.add(c, Map.of(Counter.SIGNATURE_FAILURES.key(), 1L), CounterStore.shard(id));
          return AlertStore.insert(c, alert);
        });
  }

  /** Quarantines a device and stores the alert, atomically; later batches are refused. */
  public AlertRow quarantine(String id, String reason, Map<String, Long> counters, AlertRow alert) {
    return jdbc.inTransaction(
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
          CounterStore.add(c, counters, CounterStore.shard(id));
          return AlertStore.insert(c, alert);
        });
  }

  /** Records of a device log with indices in [from, to), in index order. */
  public List<DeviceRecordRow> records(String deviceId, long from, long to) {
    return jdbc.read(
        "read records [" + from + ", " + to + ") of " + deviceId,
        c -> DeviceBundles.range(c, deviceId, from, to));
  }

  /**
   * The block of proof nodes written by the batch that appended {@code leafIndex}, or empty when
   * that leaf is not verified.
   */
  public Optional<NodeBlock> nodeBlock(String deviceId, long leafIndex) {
    return jdbc.queryOne(
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

  private static final String UPDATE_VERIFIED =
      "UPDATE devices SET verified_size = ?, claimed_size = GREATEST(claimed_size, ?),"
          + " compact_range = ?, root_hash = ?, last_checkpoint = ?, last_receipt = ?,"
          + " last_checkpoint_at = ?, last_receipt_at = ?, last_seen_at = ?,"
          + " clock_skew_ms = ?, edge_checks = ?, edge_maybe = ?, edge_duplicates = ?,"
          + " edge_false_positives = ?, version = version + 1, updated_at = ?"
          + " WHERE id = ? AND version = ?";

  private static final String INSERT_NODE_BLOCK =
      "INSERT INTO device_node_blocks (device_id, first_leaf, end_leaf, nodes) VALUES (?,?,?,?)";

  /**
   * Writes a verified batch's device-log part inside the batch transaction: the device row (only if
   * still at {@code expectedVersion}), the records and the proof nodes.
   *
   * @return false when the device row moved on (nothing written)
   */
  static boolean write(Connection c, BatchCommit batch, long now) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(UPDATE_VERIFIED)) {
      bindVerified(ps, batch, now);
      if (ps.executeUpdate() != 1) {
        return false;
      }
    }
    DeviceBundles.insert(c, batch.device().id(), batch.records(), now);
    if (!batch.nodes().isEmpty()) {
      try (PreparedStatement ps = c.prepareStatement(INSERT_NODE_BLOCK)) {
        bindNodeBlock(ps, batch);
        ps.executeUpdate();
      }
    }
    return true;
  }

  /**
   * Writes the device-log part of every batch of a tick inside the tick's transaction, three
   * statements for the whole tick whatever its number of batches: the device rows are locked and
   * their versions checked in one read, then updated, their records inserted and their proof nodes
   * inserted, each as one JDBC batch.
   *
   * @param batches in device id order (the order rows are locked in), a device's several batches in
   *     log order, each continuing the one before it ({@link BatchCommit#continues})
   * @return the id of a device whose row moved on since its batch was verified (then the caller
   *     rolls back), or empty when every row was written
   */
  static Optional<String> writeTick(Connection c, List<BatchCommit> batches, long now)
      throws SQLException {
    Map<String, Long> versions = lockedVersions(c, batches);
    for (int i = 0; i < batches.size(); i++) {
      BatchCommit b = batches.get(i);
      if (i > 0 && b.continues(batches.get(i - 1))) {
        continue; // checked by the version its device's first batch of the tick starts from
      }
      Long version = versions.get(b.device().id());
      if (version == null || version != b.expectedVersion()) {
        return Optional.of(b.device().id());
      }
    }
    try (PreparedStatement ps = c.prepareStatement(UPDATE_VERIFIED)) {
      for (BatchCommit b : batches) {
        bindVerified(ps, b, now);
        ps.addBatch();
      }
      int[] counts = ps.executeBatch();
      for (int i = 0; i < counts.length; i++) {
        // A bulk batch may answer SUCCESS_NO_INFO; the rows are locked at the checked versions.
        if (counts[i] == 0) {
          return Optional.of(batches.get(i).device().id());
        }
      }
    }
    DeviceBundles.insert(c, batches, now);
    try (PreparedStatement ps = c.prepareStatement(INSERT_NODE_BLOCK)) {
      boolean any = false;
      for (BatchCommit b : batches) {
        if (!b.nodes().isEmpty()) {
          bindNodeBlock(ps, b);
          ps.addBatch();
          any = true;
        }
      }
      if (any) {
        ps.executeBatch();
      }
    }
    return Optional.empty();
  }

  /** The versions of the batches' device rows, read with the rows locked for update. */
  private static Map<String, Long> lockedVersions(Connection c, List<BatchCommit> batches)
      throws SQLException {
    String marks = String.join(",", Collections.nCopies(batches.size(), "?"));
    Map<String, Long> out = new HashMap<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT id, version FROM devices WHERE id IN (" + marks + ") ORDER BY id FOR UPDATE")) {
      for (int i = 0; i < batches.size(); i++) {
        ps.setString(i + 1, batches.get(i).device().id());
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.put(rs.getString(1), rs.getLong(2));
        }
      }
    }
    return out;
  }

  private static void bindVerified(PreparedStatement ps, BatchCommit batch, long now)
      throws SQLException {
    DeviceRow d = batch.device();
    ps.setLong(1, d.verifiedSize());
    ps.setLong(2, d.claimedSize());
    ps.setBytes(3, d.compactRange());
    ps.setBytes(4, d.rootHash());
    ps.setString(5, d.lastCheckpoint());
    ps.setString(6, d.lastReceipt());
    Jdbc.setLong(ps, 7, d.lastCheckpointAt());
    Jdbc.setLong(ps, 8, d.lastReceiptAt());
    Jdbc.setLong(ps, 9, d.lastSeenAt());
    Jdbc.setLong(ps, 10, d.clockSkewMs());
    ps.setLong(11, d.edge().checks());
    ps.setLong(12, d.edge().maybe());
    ps.setLong(13, d.edge().duplicates());
    ps.setLong(14, d.edge().falsePositives());
    ps.setLong(15, now);
    ps.setString(16, d.id());
    ps.setLong(17, batch.expectedVersion());
  }

  private static void bindNodeBlock(PreparedStatement ps, BatchCommit batch) throws SQLException {
    ps.setString(1, batch.device().id());
    ps.setLong(2, batch.expectedVerifiedSize());
    ps.setLong(3, batch.device().verifiedSize());
    ps.setBytes(4, NodeBlock.encode(batch.nodes()));
  }

  private static void bindDevice(PreparedStatement ps, DeviceRow d) throws SQLException {
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
    Jdbc.setLong(ps, 12, d.lastCheckpointAt());
    Jdbc.setLong(ps, 13, d.lastReceiptAt());
    Jdbc.setLong(ps, 14, d.lastSeenAt());
    Jdbc.setLong(ps, 15, d.clockSkewMs());
    ps.setLong(16, d.signatureFailures());
    ps.setLong(17, d.edge().checks());
    ps.setLong(18, d.edge().maybe());
    ps.setLong(19, d.edge().duplicates());
    ps.setLong(20, d.edge().falsePositives());
    ps.setLong(21, d.version());
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
        Jdbc.getLong(rs, 12),
        Jdbc.getLong(rs, 13),
        Jdbc.getLong(rs, 14),
        Jdbc.getLong(rs, 15),
        rs.getLong(16),
        new EdgeCounters(rs.getLong(17), rs.getLong(18), rs.getLong(19), rs.getLong(20)),
        rs.getLong(21),
        rs.getLong(22));
  }
}
