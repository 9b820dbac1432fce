-- Device log store, schema version 1 (docs/edge-agent.md "Store layout").
-- Statements are separated by lines holding a single ';'.
CREATE TABLE meta (
  name  TEXT PRIMARY KEY,
  value TEXT NOT NULL
)
;
-- One row per captured record, idx = index in the device log (0..size-1).
-- canonical = CanonicalRecord bytes (the Merkle leaf), leaf_hash = RFC 6962 leaf hash of them,
-- checkpoint_size = size of the signed tree head committed in the same transaction.
CREATE TABLE records (
  idx             INTEGER PRIMARY KEY,
  idempotency_key TEXT    NOT NULL UNIQUE,
  content_hash    TEXT    NOT NULL,
  canonical       BLOB    NOT NULL,
  leaf_hash       BLOB    NOT NULL,
  captured_at     INTEGER NOT NULL,
  checkpoint_size INTEGER NOT NULL,
  outcome         TEXT,
  seq             INTEGER,
  message_id      TEXT,
  outcome_reason  TEXT,
  synced_at       INTEGER
)
;
-- The compact range of the whole log (merkle CompactRange.toBytes) and its size; single row.
CREATE TABLE log_state (
  id            INTEGER PRIMARY KEY CHECK (id = 0),
  size          INTEGER NOT NULL,
  compact_range BLOB    NOT NULL
)
;
-- Signed tree heads (C2SP signed-note over a tlog-checkpoint body), one per commit.
CREATE TABLE checkpoints (
  size       INTEGER PRIMARY KEY,
  note       TEXT    NOT NULL,
  created_at INTEGER NOT NULL
)
;
-- Server receipts (cosigned checkpoints) received by the sync client.
CREATE TABLE receipts (
  size        INTEGER PRIMARY KEY,
  note        TEXT    NOT NULL,
  received_at INTEGER NOT NULL
)
;
-- Cumulative counters (dedupe statistics), updated in the capture transactions.
CREATE TABLE counters (
  name  TEXT PRIMARY KEY,
  value INTEGER NOT NULL
)
;
-- Latest Bloom filter snapshot; single row.
CREATE TABLE bloom_snapshot (
  id                 INTEGER PRIMARY KEY CHECK (id = 0),
  expected_items     INTEGER NOT NULL,
  false_positive     REAL    NOT NULL,
  covered_size       INTEGER NOT NULL,
  current_started_at INTEGER NOT NULL,
  rotations          INTEGER NOT NULL,
  current_items      INTEGER NOT NULL,
  current_bits       BLOB    NOT NULL,
  previous_items     INTEGER NOT NULL,
  previous_bits      BLOB
)
