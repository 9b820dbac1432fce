package dev.danmakuledger.server.storage;

import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The one column list and row mapper of {@link MessageRow}, for every store that reads messages.
 */
final class MessageRows {
  static final String COLUMNS =
      "room, seq, message_id, idempotency_key, content_hash, device_id, device_idx, user_id, text,"
          + " playback_ms, mode, color, font_size, hlc, status, reason, version";

  private MessageRows() {}

  /** {@link #COLUMNS} qualified by a table alias, for joins. */
  static String columnsOf(String alias) {
    return alias + "." + COLUMNS.replace(", ", ", " + alias + ".");
  }

  static MessageRow read(ResultSet rs) throws SQLException {
    return new MessageRow(
        rs.getString(1),
        rs.getLong(2),
        Jdbc.getLong(rs, 3),
        rs.getString(4),
        rs.getString(5),
        rs.getString(6),
        Jdbc.getLong(rs, 7),
        rs.getString(8),
        rs.getString(9),
        Jdbc.getLong(rs, 10),
        rs.getInt(11),
        rs.getInt(12),
        rs.getInt(13),
        rs.getLong(14),
        MessageStatus.valueOf(rs.getString(15)),
        rs.getString(16),
        rs.getLong(17));
  }
}
