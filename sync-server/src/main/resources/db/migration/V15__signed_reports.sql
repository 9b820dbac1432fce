-- Signed device reports (docs/sync.md, "Signed reports"; docs/sync-server.md, "Stuck devices").
-- report_signed: 1 when the device signed the stored report, 0 for an older agent's unsigned report
-- (every report stored before this migration); report_seq: the highest report number of the
-- device's signed reports, below which a signed report is a replay; alerted_at: server time of
-- the device's last STUCK alert, for the per-device alert window. Same portability rules as V1.
ALTER TABLE device_sync_state ADD COLUMN report_signed SMALLINT DEFAULT 0 NOT NULL;
ALTER TABLE device_sync_state ADD COLUMN report_seq BIGINT NULL;
ALTER TABLE device_sync_state ADD COLUMN alerted_at BIGINT NULL;
