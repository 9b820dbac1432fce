package dev.danmakuledger.server.roomlog;

import dev.danmakuledger.merkle.hash.Rfc6962;
import dev.danmakuledger.protocol.wire.Outcome;
import dev.danmakuledger.server.storage.Database;
import dev.danmakuledger.server.storage.DeviceRecordRow;
import dev.danmakuledger.server.storage.RecordBundle;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Writes committed room slots straight into SQL (messages and their device records, a bundle of one
 * record each), as the write path commits them, and returns the entry bytes the room log must hold
 * for each: the independent expectation the integration tests compare with.
 */
final class RoomSlots {
  private final Database db;

  RoomSlots(Database db) {
    this.db = db;
  }

  static String key(String device, long index) {
    return device + ":u" + index + ":1700000000000:" + String.format("%032x", index);
  }

  static byte[] canonical(String device, long index) {
    return ("record " + device + " " + index).getBytes(StandardCharsets.UTF_8);
  }

  /** A message at {@code seq} of record {@code index} of {@code device}; returns its entry. */
  byte[] message(String room, long seq, String device, long index) throws SQLException {
    return message(room, seq, device, index, "CONFIRMED");
  }

  /** As {@link #message(String, long, String, long)} with another status (PENDING, REJECTED). */
  byte[] message(String room, long seq, String device, long index, String status)
      throws SQLException {
    return message(room, seq, device, index, status, 1000 + seq);
  }

  /** As {@link #message(String, long, String, long)} with another message id. */
  byte[] message(String room, long seq, String device, long index, long messageId)
      throws SQLException {
    return message(room, seq, device, index, "CONFIRMED", messageId);
  }

  private byte[] message(
      String room, long seq, String device, long index, String status, long messageId)
      throws SQLException {
    String key = key(device, index);
    byte[] canonical = canonical(device, index);
    try (Connection c = db.dataSource().getConnection()) {
      insertBundle(
          c,
          List.of(
              new DeviceRecordRow(
                  device,
                  index,
                  key,
                  canonical,
                  Outcome.CONFIRMED,
                  room,
                  seq,
                  messageId,
                  null,
                  null)));
      try (PreparedStatement ps =
          c.prepareStatement(
              "INSERT INTO messages (room, seq, message_id, idempotency_key, device_id,"
                  + " device_idx, mode, color, font_size, hlc, status, version, created_at,"
                  + " updated_at) VALUES (?,?,?,?,?,?,1,0,25,0,?,0,0,0)")) {
        ps.setString(1, room);
        ps.setLong(2, seq);
        ps.setLong(3, messageId);
        ps.setString(4, key);
        ps.setString(5, device);
        ps.setLong(6, index);
        ps.setString(7, status);
        ps.executeUpdate();
      }
    }
    return entry(seq, messageId, device, index);
  }

  /**
   * Consecutive records of {@code device} from {@code firstIndex} in one device bundle, record i a
   * message at seq 1 of {@code rooms.get(i)} with message id {@code firstMessageId + i}, as a batch
   * whose records go to many rooms stores them; returns each room's entry.
   */
  List<byte[]> spread(String device, long firstIndex, List<String> rooms, long firstMessageId)
      throws SQLException {
    List<DeviceRecordRow> records = new ArrayList<>();
    List<byte[]> entries = new ArrayList<>();
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO messages (room, seq, message_id, idempotency_key, device_id,"
                    + " device_idx, mode, color, font_size, hlc, status, version, created_at,"
                    + " updated_at) VALUES (?,1,?,?,?,?,1,0,25,0,'CONFIRMED',0,0,0)")) {
      for (int i = 0; i < rooms.size(); i++) {
        long index = firstIndex + i;
        long messageId = firstMessageId + i;
        records.add(
            new DeviceRecordRow(
                device,
                index,
                key(device, index),
                canonical(device, index),
                Outcome.CONFIRMED,
                rooms.get(i),
                1L,
                messageId,
                null,
                null));
        ps.setString(1, rooms.get(i));
        ps.setLong(2, messageId);
        ps.setString(3, key(device, index));
        ps.setString(4, device);
        ps.setLong(5, index);
        ps.addBatch();
        entries.add(entry(1, messageId, device, index));
      }
      ps.executeBatch();
      insertBundle(c, records);
    }
    return entries;
  }

  /** One {@code device_bundles} row holding {@code records} (consecutive, of one device). */
  private static void insertBundle(Connection c, List<DeviceRecordRow> records)
      throws SQLException {
    DeviceRecordRow first = records.get(0);
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO device_bundles (device_id, first_idx, end_idx, records, created_at)"
                + " VALUES (?,?,?,?,0)")) {
      ps.setString(1, first.deviceId());
      ps.setLong(2, first.index());
      ps.setLong(3, first.index() + records.size());
      ps.setBytes(4, RecordBundle.encode(records));
      ps.executeUpdate();
    }
  }

  /** The entry of the message at {@code seq} of record {@code index} with {@code messageId}. */
  static byte[] entry(long seq, long messageId, String device, long index) {
    return ("v1 "
            + seq
            + " M "
            + messageId
            + " "
            + device
            + " "
            + index
            + " "
            + HexFormat.of().formatHex(Rfc6962.leafHash(canonical(device, index)))
            + " "
            + key(device, index))
        .getBytes(StandardCharsets.US_ASCII);
  }

  /** A tombstone at {@code seq}; returns its entry. */
  byte[] tombstone(String room, long seq, String reason) throws SQLException {
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO messages (room, seq, mode, color, font_size, hlc, status, reason,"
                    + " version, created_at, updated_at) VALUES (?,?,0,0,0,0,'TOMBSTONE',?,0,0,0)")) {
      ps.setString(1, room);
      ps.setLong(2, seq);
      ps.setString(3, reason);
      ps.executeUpdate();
    }
    return ("v1 " + seq + " T " + reason).getBytes(StandardCharsets.US_ASCII);
  }
}
