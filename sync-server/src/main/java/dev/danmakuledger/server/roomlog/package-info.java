/**
 * Room transparency logs (docs/room-log.md, docs/architecture.md §7): integration of committed room
 * slots into C2SP tlog-tiles logs off the request path, signed checkpoints, and the reads the HTTP
 * API serves (checkpoint, tiles, entry bundles, audit bundles).
 */
package dev.danmakuledger.server.roomlog;
