package dev.danmakuledger.ui.roomlog;

/**
 * One room's row of the log audit, as the Rooms view shows it.
 *
 * @param room the room
 * @param status the latest finding; SPLIT_VIEW stays while a split view is recorded for the room
 * @param size the size of the last checkpoint verified, or -1 if none
 * @param ageSeconds seconds since that checkpoint was made (its cosignature time) or, without one,
 *     first verified, or -1
 * @param detail what the audit saw, for the operator
 */
public record RoomLogState(
    String room, RoomLogStatus status, long size, long ageSeconds, String detail) {}
