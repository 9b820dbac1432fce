/**
 * The room log: every chat room as a C2SP tlog-tiles transparency log whose leaf {@code i} is the
 * entry for room sequence number {@code i + 1} (a message or a tombstone), so anyone can audit a
 * room's numbering offline from static files. The entry format is specified in {@code
 * docs/room-log.md}.
 */
package dev.danmakuledger.protocol.room;
