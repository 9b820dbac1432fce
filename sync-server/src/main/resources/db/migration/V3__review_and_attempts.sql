-- Confirmation cursors, review transitions and unauthenticated attempts (docs/sync-server.md,
-- "Room streams" and "Bad signatures"). Same portability rules as V1.

-- The order in which messages of a room became CONFIRMED (at insert or at approval): 1, 2, 3, ...
-- per room, assigned under the room's row in room_cursors, so a cursor is visible only once every
-- smaller cursor of the room is committed. It is the event id of the room stream. Messages
-- confirmed before this migration get their seq as cursor, so a stream resumed with an event id
-- an older server sent (the seq) continues where it was.
ALTER TABLE messages ADD COLUMN confirmed_cursor BIGINT NULL;

UPDATE messages SET confirmed_cursor = seq WHERE status = 'CONFIRMED';

CREATE UNIQUE INDEX uq_messages_cursor ON messages (room, confirmed_cursor);

-- The last confirmation cursor handed out per room.
CREATE TABLE room_cursors (
  room             VARCHAR(64) NOT NULL,
  confirmed_cursor BIGINT      NOT NULL,
  PRIMARY KEY (room)
)${tableOptions};

INSERT INTO room_cursors (room, confirmed_cursor)
  SELECT room, MAX(seq) FROM messages GROUP BY room;

-- Checkpoints that did not verify under a device's enrolled key: unauthenticated, so counted
-- beside the device and never allowed to change its state. One alert per device per window
-- (alert_id), updated in place with the window's count.
CREATE TABLE signature_attempts (
  device_id       VARCHAR(64) NOT NULL,
  attempts        BIGINT      NOT NULL,
  window_start    BIGINT      NOT NULL,
  window_attempts BIGINT      NOT NULL,
  alert_id        BIGINT      NULL,
  last_address    VARCHAR(64) NULL,
  last_at         BIGINT      NOT NULL,
  PRIMARY KEY (device_id)
)${tableOptions};

INSERT INTO signature_attempts
    (device_id, attempts, window_start, window_attempts, alert_id, last_address, last_at)
  SELECT id, signature_failures, 0, 0, NULL, NULL, COALESCE(last_seen_at, 0)
  FROM devices WHERE signature_failures > 0;
