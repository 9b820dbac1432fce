package dev.danmakuledger.merkle.tiles;

/**
 * An application's rule for the entry bytes of its log, applied by {@link LogAudit} to every leaf
 * in order (for a room log: leaf {@code i} is the entry for sequence number {@code i + 1}). The
 * merkle module knows nothing of entry formats; callers plug them in here.
 */
@FunctionalInterface
public interface EntryCheck {
  /** Accepts every entry. */
  EntryCheck NONE = (leafIndex, entry) -> {};

  /**
   * Checks entry {@code leafIndex}.
   *
   * @throws TileException saying what is wrong with the entry
   */
  void check(long leafIndex, byte[] entry) throws TileException;
}
