package dev.danmakuledger.protocol.wire;

/**
 * The outcome of one record of a batch (docs/architecture.md §4). Nothing is ever silently dropped.
 */
public enum Outcome {
  /** New: a room sequence number was assigned and the message is broadcast. */
  CONFIRMED,
  /** New, held for operator review; broadcast only once approved. */
  PENDING,
  /** The key was seen before: the original seq, message id and status are returned. */
  DUPLICATE,
  /** The key was seen before with different content. */
  CONFLICT,
  /** Invalid or moderated; the reason says why. */
  REJECTED
}
