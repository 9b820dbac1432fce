-- Confirmation cursors as runs (docs/sync-server.md, "Room streams"): one row per run of
-- consecutive seqs of a room that one transaction confirmed with consecutive cursors, so that
-- cursor c of the run is seq first_seq + (c - first_cursor). A batch writes about one row per
-- room instead of one per message. last_seq - first_seq = last_cursor - first_cursor always; runs
-- of a room never share a cursor, so ordered by last_cursor they are in cursor order. Replaces
-- room_confirmations of V11: each of its rows becomes a run of one. Same portability rules as V1.
CREATE TABLE confirmation_runs (
  room         VARCHAR(64) NOT NULL,
  last_cursor  BIGINT      NOT NULL,
  first_cursor BIGINT      NOT NULL,
  first_seq    BIGINT      NOT NULL,
  last_seq     BIGINT      NOT NULL,
  PRIMARY KEY (room, last_cursor)
)${tableOptions};

CREATE INDEX ix_confirmation_runs_seq ON confirmation_runs (room, last_seq);

INSERT INTO confirmation_runs (room, last_cursor, first_cursor, first_seq, last_seq)
  SELECT room, confirmed_cursor, confirmed_cursor, seq, seq FROM room_confirmations;

DROP TABLE room_confirmations;
