-- Each room's last run of confirmation cursors is kept open in its room_cursors row
-- (docs/sync-server.md, "Room streams"): cursors run_cursor..confirmed_cursor confirmed seqs
-- cursor + run_offset. A transaction whose run continues it only moves confirmed_cursor, so a room
-- that a commit touches costs that one row, not one more in confirmation_runs; a run that does not
-- continue it closes it into confirmation_runs. closed_cursor and closed_offset hold the run the
-- last update closed, for the transaction that made it to copy into confirmation_runs; nothing
-- else reads them. NULL run_cursor: no open run (rows stored before this migration, whose runs
-- are all in confirmation_runs). Same portability rules as V1.
ALTER TABLE room_cursors ADD COLUMN run_cursor BIGINT NULL;
ALTER TABLE room_cursors ADD COLUMN run_offset BIGINT NULL;
ALTER TABLE room_cursors ADD COLUMN closed_cursor BIGINT NULL;
ALTER TABLE room_cursors ADD COLUMN closed_offset BIGINT NULL;
