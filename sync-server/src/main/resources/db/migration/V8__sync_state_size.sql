-- The device log size at which a device reported its upload queue (docs/sync-server.md, "Stuck
-- devices"): the index of its oldest unsynced record when it sent the batch that carried the
-- report. Once the verified size passes it, that record was delivered and the reported age no
-- longer describes the queue. NULL for reports stored before this migration. Same portability
-- rules as V1.
ALTER TABLE device_sync_state ADD COLUMN reported_at_size BIGINT NULL;
