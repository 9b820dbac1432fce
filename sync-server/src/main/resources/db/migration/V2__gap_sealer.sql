-- Gap sealer and records the server can never accept (docs/architecture.md §5, §10).
-- Same file on H2 (MODE=MySQL) and MariaDB/MySQL.

-- Per room, the highest number up to which every number is known to be a message or a
-- tombstone. The gap sealer only scans above it and only ever raises it (GREATEST), so several
-- server instances may run the sealer at once.
CREATE TABLE room_watermarks (
  room           VARCHAR(64) NOT NULL,
  sealed_through BIGINT      NOT NULL,
  updated_at     BIGINT      NOT NULL,
  PRIMARY KEY (room)
)${tableOptions};

-- A record the server rejects because its bytes are empty or longer than any valid record is
-- still part of the signed device log: its bytes are kept as sent (bounded by the request body
-- limit), so resends compare and proofs recompute the leaf exactly.
ALTER TABLE device_records MODIFY COLUMN canonical MEDIUMBLOB NOT NULL;
