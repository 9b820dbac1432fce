-- Device log records stored in bundles (docs/architecture.md §6, "Device log storage"): up to 256
-- consecutive records of one device log to a row, with the outcomes the server gave them, written
-- by the batch that appended them; the row holds records [first_idx, end_idx). The layout of
-- `records` is RecordBundle's (version 1). V10 moves the rows of device_records here and drops
-- that table. Same portability rules as V1.
CREATE TABLE device_bundles (
  device_id  VARCHAR(64) NOT NULL,
  first_idx  BIGINT      NOT NULL,
  end_idx    BIGINT      NOT NULL,
  records    MEDIUMBLOB  NOT NULL,
  created_at BIGINT      NOT NULL,
  PRIMARY KEY (device_id, first_idx)
)${tableOptions};
