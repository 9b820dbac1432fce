package dev.danmakuledger.server.storage;

/** State of a numbered room slot (docs/architecture.md §5: PENDING → CONFIRMED | REJECTED). */
public enum MessageStatus {
  CONFIRMED,
  PENDING,
  REJECTED,
  /** A number burned without a message (a duplicate caught only by SQL). */
  TOMBSTONE
}
