-- The review queue (docs/architecture.md §5): one row per message held PENDING for review, in the
-- order the console lists them, written in the transaction that stores the message and deleted
-- in the one that decides it. It replaces ix_messages_status, an index over (status, room, seq)
-- that every stored message paid for so that the few held ones could be found. Same portability
-- rules as V1.
CREATE TABLE review_queue (
  room    VARCHAR(64) NOT NULL,
  seq     BIGINT      NOT NULL,
  held_at BIGINT      NOT NULL,
  PRIMARY KEY (room, seq)
)${tableOptions};

CREATE INDEX ix_review_queue_held ON review_queue (held_at, room, seq);

INSERT INTO review_queue (room, seq, held_at)
  SELECT room, seq, created_at FROM messages WHERE status = 'PENDING';

DROP INDEX ix_messages_status ON messages;
