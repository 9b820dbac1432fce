-- Per-minute samples of each instance's own counters (docs/sync-server.md, "History"), written
-- off the request path by every instance and summed over instances for GET /admin/history.
-- Keyed by (minute, instance): an instance rewrites its running minute with values that only
-- grow (GREATEST), so a repeated or late write never counts twice. Rows older than
-- --history-retention-hours are deleted. Same portability rules as V1.
CREATE TABLE instance_minutes (
  minute_start_ms BIGINT      NOT NULL,
  instance_id     VARCHAR(64) NOT NULL,
  batches         BIGINT      NOT NULL,
  records         BIGINT      NOT NULL,
  confirmed       BIGINT      NOT NULL,
  pending         BIGINT      NOT NULL,
  duplicates      BIGINT      NOT NULL,
  conflicts       BIGINT      NOT NULL,
  rejected        BIGINT      NOT NULL,
  subscribers     BIGINT      NOT NULL,
  admit_micros    BIGINT      NOT NULL,
  commit_micros   BIGINT      NOT NULL,
  PRIMARY KEY (minute_start_ms, instance_id)
)${tableOptions};
