-- Confirmation cursors in a table of their own (docs/sync-server.md, "Room streams"): one narrow
-- row per confirmation, the cursor a room handed out and the seq of the message it confirmed,
-- written as the last statement of the confirming transaction, after the message rows, so that a
-- room's room_cursors row stays locked only for this insert and the commit. Replaces the column
-- messages.confirmed_cursor of V3, whose values are copied. Same portability rules as V1.
CREATE TABLE room_confirmations (
  room             VARCHAR(64) NOT NULL,
  confirmed_cursor BIGINT      NOT NULL,
  seq              BIGINT      NOT NULL,
  PRIMARY KEY (room, confirmed_cursor)
)${tableOptions};

CREATE UNIQUE INDEX uq_room_confirmations_seq ON room_confirmations (room, seq);

INSERT INTO room_confirmations (room, confirmed_cursor, seq)
  SELECT room, confirmed_cursor, seq FROM messages WHERE confirmed_cursor IS NOT NULL;

DROP INDEX uq_messages_cursor ON messages;

ALTER TABLE messages DROP COLUMN confirmed_cursor;
