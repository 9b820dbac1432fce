-- Schema version 2: retention pruning (docs/edge-agent.md "Retention and pruning").
-- A pruned record keeps every column but its canonical bytes, which become an empty blob;
-- pruned_at is the capture-clock millisecond the bytes were dropped, null while they are kept.
ALTER TABLE records ADD COLUMN pruned_at INTEGER
