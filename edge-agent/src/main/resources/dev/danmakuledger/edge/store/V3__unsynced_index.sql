-- Schema version 3: the upload queue's age (docs/edge-agent.md "Sync state").
-- Only records without a server outcome are indexed, so finding the oldest unsynced capture
-- reads the queue, not the whole log.
CREATE INDEX records_unsynced ON records(captured_at) WHERE outcome IS NULL
