-- A partial tile is stored as the piece its step appended (docs/room-log.md, "Integration"): the
-- row of width W holds the hashes or entries [from_width, W) of its index, and the tile of width
-- W is the tile of width from_width followed by that piece. Full tiles, first partials and rows
-- stored before this migration hold the whole tile (from_width 0). Same portability rules as V1.
ALTER TABLE room_tiles ADD COLUMN from_width INT DEFAULT 0 NOT NULL;
