-- Room transparency logs (docs/room-log.md, "Integration"). Same portability rules as V1.

-- One row per room log: the integrated size, its root and the signed checkpoint of that size.
-- Integration locks the row (SELECT ... FOR UPDATE) and checks the version, so one integrator
-- per room extends the log at a time, whichever server instance it runs on.
CREATE TABLE room_logs (
  room         VARCHAR(64)   NOT NULL,
  tree_size    BIGINT        NOT NULL,
  root_hash    VARBINARY(32) NOT NULL,
  checkpoint   VARCHAR(4096) NULL,
  published_at BIGINT        NOT NULL,
  version      BIGINT        NOT NULL,
  updated_at   BIGINT        NOT NULL,
  PRIMARY KEY (room)
)${tableOptions};

-- C2SP tlog-tiles hash tiles (kind 'hash', tile_level 0..7) and entry bundles (kind 'entries',
-- tile_level 0), exactly the bytes served. A full tile has width 256 and never changes; partial
-- tiles are kept for published sizes until the full tile of the same index replaces them.
CREATE TABLE room_tiles (
  room       VARCHAR(64) NOT NULL,
  kind       VARCHAR(8)  NOT NULL,
  tile_level INT         NOT NULL,
  idx        BIGINT      NOT NULL,
  width      INT         NOT NULL,
  data       MEDIUMBLOB  NOT NULL,
  PRIMARY KEY (room, kind, tile_level, idx, width)
)${tableOptions};
