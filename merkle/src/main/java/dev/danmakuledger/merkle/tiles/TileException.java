package dev.danmakuledger.merkle.tiles;

import dev.danmakuledger.merkle.VerificationException;

/** A tile or entry bundle from a source is missing, malformed or does not fit the tree. */
public final class TileException extends VerificationException {
  private static final long serialVersionUID = 1L;

  public TileException(String message) {
    super(message);
  }
}
