-- How a stored tile's bytes are encoded (docs/room-log.md, "Integration"): 'identity' (stored as
-- served) or 'deflate' (zlib, RFC 1950; entry bundles, about half their size). Served bytes are
-- the same either way; rows stored before this migration are identity. Same portability rules as
-- V1.
ALTER TABLE room_tiles ADD COLUMN encoding VARCHAR(8) DEFAULT 'identity' NOT NULL;
