package dev.danmakuledger.server.storage;

/**
 * Per-room counts for the operator console.
 *
 * @param room room
 * @param highSeq highest sequence number stored
 * @param tombstones tombstone rows
 * @param confirmed confirmed messages
 * @param pending messages held for review
 * @param rejected rejected messages
 * @param lastMinute messages created in the last minute
 */
public record RoomStats(
    String room,
    long highSeq,
    long tombstones,
    long confirmed,
    long pending,
    long rejected,
    long lastMinute) {}
