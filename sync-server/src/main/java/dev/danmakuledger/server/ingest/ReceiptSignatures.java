package dev.danmakuledger.server.ingest;

/**
 * The server signatures a batch's receipt carries (docs/sync.md, "Receipts"): always the C2SP
 * tlog-cosignature; the Ed25519 note signature of the first server key too, unless the request
 * names this server's cosigner key as the one its agent checks receipts with ({@value #HEADER}).
 * Agents enrolled before receipts were cosigned know only that first key and send no such header,
 * and an agent that holds another cosigner key (an instance of the deployment that was given keys
 * of its own) falls back to the note signature: both keep getting it. A receipt of one signature
 * fewer saves the server a signature a batch.
 */
public enum ReceiptSignatures {
  /** The cosignature and the note signature by the first server key. */
  COSIGNATURE_AND_NOTE,
  /** The cosignature alone. */
  COSIGNATURE;

  /**
   * The request header with which an agent names the cosigner key it checks receipts with, by its
   * key ID {@code name+hash} (the vkey without the public key).
   */
  public static final String HEADER = "Danmaku-Receipt-Cosigner";

  /**
   * The signatures a request asks for by {@code header} (its {@value #HEADER}, or null) of a server
   * whose cosigner key has the ID {@code cosignerKeyId}: the cosignature alone when the header
   * names exactly that key (blanks around it aside), else both. Anything else in the header asks
   * for both, as a missing one does: it only ever saves the server work, so it is never refused.
   */
  static ReceiptSignatures requestedBy(String header, String cosignerKeyId) {
    return header != null && header.strip().equals(cosignerKeyId)
        ? COSIGNATURE
        : COSIGNATURE_AND_NOTE;
  }
}
