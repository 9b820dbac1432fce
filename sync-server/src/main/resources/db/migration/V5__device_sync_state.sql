-- The upload queue state devices report with their batches (docs/sync-server.md, "Stuck
-- devices"). Same portability rules as V1. Written only from batches whose device checkpoint
-- verified; one row per device, replaced by each report.
-- oldest_unsynced_at: device-clock capture time of the device's oldest record without an outcome;
-- queue_age_ms: how old that record was when the batch was sent (device clock at sending minus
-- oldest_unsynced_at, or server clock when the device sent none); last_outcome: the device's
-- previous sync attempt, a short token (ok, an error code, transport-<kind>);
-- stuck_since: server time the current STUCK episode began, null outside one.
CREATE TABLE device_sync_state (
  device_id          VARCHAR(64) NOT NULL,
  oldest_unsynced_at BIGINT      NULL,
  queue_age_ms       BIGINT      NULL,
  last_attempt_age_ms BIGINT     NULL,
  last_outcome       VARCHAR(48) NULL,
  reported_at        BIGINT      NOT NULL,
  stuck_since        BIGINT      NULL,
  PRIMARY KEY (device_id)
)${tableOptions};
