package dev.danmakuledger.lua;

import java.util.Objects;

/**
 * One record offered to the admit script (docs/architecture.md §5, check 2): its idempotency key,
 * the hash of its content (tells a duplicate from a conflict) and the message id it gets if it is
 * new.
 *
 * @param idempotencyKey any non-empty string of at most {@value #MAX_KEY_LENGTH} chars; stored as
 *     data, never interpreted
 * @param contentHash 1..128 characters of {@code [0-9A-Za-z]} (the record's lowercase hex SHA-256)
 * @param candidateMessageId the message id stored when the key is new, {@code >= 0}; unique per
 *     item, because a DUPLICATE carrying this id is this item's own earlier admission
 */
public record AdmitItem(String idempotencyKey, String contentHash, long candidateMessageId) {

  /** Longest accepted idempotency key, in chars. */
  public static final int MAX_KEY_LENGTH = 1024;

  private static final int MAX_CONTENT_HASH = 128;

  /** Whether each ASCII character is one of {@code [0-9A-Za-z]}. */
  private static final boolean[] ALPHANUMERIC = new boolean[128];

  static {
    for (char c = 0; c < ALPHANUMERIC.length; c++) {
      ALPHANUMERIC[c] = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }
  }

  public AdmitItem {
    Objects.requireNonNull(idempotencyKey, "idempotencyKey");
    Objects.requireNonNull(contentHash, "contentHash");
    if (idempotencyKey.isEmpty() || idempotencyKey.length() > MAX_KEY_LENGTH) {
      throw new IllegalArgumentException(
          "idempotency key: got length " + idempotencyKey.length() + ", want 1.." + MAX_KEY_LENGTH);
    }
    if (!isContentHash(contentHash)) {
      throw new IllegalArgumentException(
          "content hash: got length "
              + contentHash.length()
              + " not all [0-9A-Za-z] or too long, want 1..128 of [0-9A-Za-z]");
    }
    if (candidateMessageId < 0) {
      throw new IllegalArgumentException(
          "candidate message id: got " + candidateMessageId + ", want >= 0");
    }
  }

  /**
   * {@code [0-9A-Za-z]{1,128}}, looked up in a table: the digit-or-letter branch would be a coin
   * toss for the branch predictor on every character of a random hex digest.
   */
  private static boolean isContentHash(String s) {
    if (s.isEmpty() || s.length() > MAX_CONTENT_HASH) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c >= ALPHANUMERIC.length || !ALPHANUMERIC[c]) {
        return false;
      }
    }
    return true;
  }
}
