package dev.danmakuledger.server.ingest;

import java.util.Locale;

/**
 * The server signatures a batch's receipt carries (docs/sync.md, "Receipts"): always the C2SP
 * tlog-cosignature; the Ed25519 note signature of the first server key too, unless the request says
 * that its agent checks the cosignature ({@value #HEADER}{@code : cosignature}). Agents enrolled
 * before receipts were cosigned know only that first key and send no such header, so they keep
 * getting both; a receipt of one signature fewer saves the server a signature a batch.
 */
public enum ReceiptSignatures {
  /** The cosignature and the note signature older agents check. */
  COSIGNATURE_AND_NOTE,
  /** The cosignature alone. */
  COSIGNATURE;

  /** The request header an agent names the receipt signatures it checks with. */
  public static final String HEADER = "Danmaku-Receipt-Signatures";

  private static final String COSIGNATURE_TOKEN = "cosignature";

  /**
   * The signatures a request asks for by {@code header} (its {@value #HEADER}, or null): the
   * cosignature alone when the comma-separated list names {@code cosignature} (case aside), else
   * both. A value that names nothing this server knows asks for both, as a missing one does: the
   * header only ever saves the server work, so nothing in it is refused.
   */
  public static ReceiptSignatures requestedBy(String header) {
    if (header == null) {
      return COSIGNATURE_AND_NOTE;
    }
    for (String token : header.split(",", -1)) {
      if (token.strip().toLowerCase(Locale.ROOT).equals(COSIGNATURE_TOKEN)) {
        return COSIGNATURE;
      }
    }
    return COSIGNATURE_AND_NOTE;
  }
}
