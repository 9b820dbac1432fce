package dev.danmakuledger.merkle.hash;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** SHA-256 digests for the hashes the ledger computes per record, without a lookup per digest. */
public final class Sha256 {
  private static final MessageDigest PROTOTYPE = lookUp();

  private Sha256() {}

  /**
   * A fresh digest, cloned from a never-updated prototype (cheaper than a provider lookup); looked
   * up for a provider whose digests cannot be cloned.
   */
  public static MessageDigest fresh() {
    try {
      return (MessageDigest) PROTOTYPE.clone();
    } catch (CloneNotSupportedException e) {
      return lookUp();
    }
  }

  private static MessageDigest lookUp() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every Java platform", e);
    }
  }
}
