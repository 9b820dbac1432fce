package dev.danmakuledger.merkle.proof;

import dev.danmakuledger.merkle.VerificationException;
import java.util.HexFormat;

/** A well-formed proof led to a root different from the trusted one. */
public final class RootMismatchException extends VerificationException {
  private static final long serialVersionUID = 1L;

  private final byte[] expected;
  private final byte[] computed;

  /**
   * @param what names the root that mismatched, e.g. "root" or "new root"
   * @param expected the trusted root
   * @param computed the root the proof yields
   */
  public RootMismatchException(String what, byte[] expected, byte[] computed) {
    super(
        what
            + " mismatch: computed "
            + HexFormat.of().formatHex(computed)
            + ", expected "
            + HexFormat.of().formatHex(expected));
    this.expected = expected.clone();
    this.computed = computed.clone();
  }

  /** Returns the trusted root the caller supplied. */
  public byte[] expected() {
    return expected.clone();
  }

  /** Returns the root computed from the proof. */
  public byte[] computed() {
    return computed.clone();
  }
}
