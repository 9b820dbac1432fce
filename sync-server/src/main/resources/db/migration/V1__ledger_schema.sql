-- Danmaku Ledger sync-server schema (docs/architecture.md §4-§6).
-- The same file runs on H2 (MODE=MySQL;DATABASE_TO_LOWER=TRUE) and MariaDB/MySQL:
-- only portable types and times as epoch milliseconds. The tableOptions placeholder is empty on
-- H2 and sets InnoDB + utf8mb4 with binary collation on MySQL/MariaDB (keys and rooms are
-- case-sensitive; CJK and emoji round-trip).

-- One row per enrolled device: the server's witness state of the device log.
CREATE TABLE devices (
  id                 VARCHAR(64)    NOT NULL,
  public_key         VARBINARY(32)  NOT NULL,
  verifier_key       VARCHAR(255)   NOT NULL,
  status             VARCHAR(16)    NOT NULL,
  status_reason      VARCHAR(255)   NULL,
  verified_size      BIGINT         NOT NULL,
  claimed_size       BIGINT         NOT NULL,
  compact_range      VARBINARY(4096) NOT NULL,
  root_hash          VARBINARY(32)  NOT NULL,
  last_checkpoint    VARCHAR(2048)  NULL,
  last_receipt       VARCHAR(4096)  NULL,
  last_checkpoint_at BIGINT         NULL,
  last_receipt_at    BIGINT         NULL,
  last_seen_at       BIGINT         NULL,
  clock_skew_ms      BIGINT         NULL,
  signature_failures BIGINT         NOT NULL,
  edge_checks        BIGINT         NOT NULL,
  edge_maybe         BIGINT         NOT NULL,
  edge_duplicates    BIGINT         NOT NULL,
  edge_false_positives BIGINT       NOT NULL,
  version            BIGINT         NOT NULL,
  created_at         BIGINT         NOT NULL,
  updated_at         BIGINT         NOT NULL,
  PRIMARY KEY (id)
)${tableOptions};

-- Perfect-subtree hashes of every device log (leaves included), to serve proofs: one row per
-- verified batch holding the nodes its appends completed, as 41-byte entries
-- (level u8, index u64 big-endian, hash[32]). A node (level, index) lives in the block whose
-- leaf range contains its last leaf ((index + 1) << level) - 1.
CREATE TABLE device_node_blocks (
  device_id  VARCHAR(64) NOT NULL,
  first_leaf BIGINT      NOT NULL,
  end_leaf   BIGINT      NOT NULL,
  nodes      MEDIUMBLOB  NOT NULL,
  PRIMARY KEY (device_id, first_leaf)
)${tableOptions};

-- Every record of every device log, with the outcome the server gave it.
CREATE TABLE device_records (
  device_id       VARCHAR(64)    NOT NULL,
  idx             BIGINT         NOT NULL,
  idempotency_key VARCHAR(255)   NULL,
  canonical       VARBINARY(4096) NOT NULL,
  outcome         VARCHAR(16)    NOT NULL,
  room            VARCHAR(64)    NULL,
  seq             BIGINT         NULL,
  message_id      BIGINT         NULL,
  original_status VARCHAR(16)    NULL,
  reason          VARCHAR(255)   NULL,
  created_at      BIGINT         NOT NULL,
  PRIMARY KEY (device_id, idx)
)${tableOptions};

-- Per-room numbered messages; a TOMBSTONE row accounts for a burned number (NULL key).
CREATE TABLE messages (
  room            VARCHAR(64)   NOT NULL,
  seq             BIGINT        NOT NULL,
  message_id      BIGINT        NULL,
  idempotency_key VARCHAR(255)  NULL,
  content_hash    CHAR(64)      NULL,
  device_id       VARCHAR(64)   NULL,
  device_idx      BIGINT        NULL,
  user_id         VARCHAR(64)   NULL,
  text            VARCHAR(1200) NULL,
  playback_ms     BIGINT        NULL,
  mode            INT           NULL,
  color           INT           NULL,
  font_size       INT           NULL,
  hlc             BIGINT        NULL,
  status          VARCHAR(16)   NOT NULL,
  reason          VARCHAR(255)  NULL,
  version         BIGINT        NOT NULL,
  created_at      BIGINT        NOT NULL,
  updated_at      BIGINT        NOT NULL,
  PRIMARY KEY (room, seq),
  CONSTRAINT uq_messages_key UNIQUE (idempotency_key),
  CONSTRAINT uq_messages_id UNIQUE (message_id)
)${tableOptions};

CREATE INDEX ix_messages_status ON messages (status, room, seq);

-- Alerts raised by ingest (forks, bad signatures, outages).
CREATE TABLE alerts (
  id        BIGINT        NOT NULL AUTO_INCREMENT,
  type      VARCHAR(16)   NOT NULL,
  severity  VARCHAR(16)   NOT NULL,
  device_id VARCHAR(64)   NULL,
  room      VARCHAR(64)   NULL,
  message   VARCHAR(1024) NOT NULL,
  data_json VARCHAR(4096) NULL,
  at        BIGINT        NOT NULL,
  PRIMARY KEY (id)
)${tableOptions};

-- Cluster-wide monotonic counters (batches, outcomes, duplicates per layer, rejects by reason),
-- split in shards so that concurrent batches of different devices do not queue on one row;
-- a counter's value is the sum over its shards.
CREATE TABLE counters (
  name          VARCHAR(128) NOT NULL,
  shard         INT          NOT NULL,
  counter_value BIGINT       NOT NULL,
  PRIMARY KEY (name, shard)
)${tableOptions};
