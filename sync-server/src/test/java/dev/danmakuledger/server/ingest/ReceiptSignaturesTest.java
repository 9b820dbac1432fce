package dev.danmakuledger.server.ingest;

import static dev.danmakuledger.server.ingest.ReceiptSignatures.COSIGNATURE;
import static dev.danmakuledger.server.ingest.ReceiptSignatures.COSIGNATURE_AND_NOTE;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Reading {@code Danmaku-Receipt-Cosigner} (docs/sync.md, "Receipts"). */
class ReceiptSignaturesTest {
  private static final String OURS = "danmaku-ledger/server/local+f3802a0f";

  private static ReceiptSignatures requested(String header) {
    return ReceiptSignatures.requestedBy(header, OURS);
  }

  @Test
  void theCosignatureAloneOnlyForThisServersCosignerKey() {
    assertEquals(COSIGNATURE, requested(OURS));
    assertEquals(COSIGNATURE, requested(" " + OURS + "\t"));
  }

  @Test
  void anotherKeyAndMissingMalformedOrHostileValuesAskForBoth() {
    assertEquals(COSIGNATURE_AND_NOTE, requested(null));
    assertEquals(COSIGNATURE_AND_NOTE, requested(""));
    assertEquals(COSIGNATURE_AND_NOTE, requested("danmaku-ledger/server/local+fe1a5dd5"));
    assertEquals(COSIGNATURE_AND_NOTE, requested("danmaku-ledger/server/other+f3802a0f"));
    assertEquals(COSIGNATURE_AND_NOTE, requested(OURS.toUpperCase(java.util.Locale.ROOT)));
    assertEquals(COSIGNATURE_AND_NOTE, requested(OURS + "+AQID"));
    assertEquals(COSIGNATURE_AND_NOTE, requested(OURS + ", " + OURS));
    assertEquals(COSIGNATURE_AND_NOTE, requested("cosignature"));
    assertEquals(COSIGNATURE_AND_NOTE, requested("\u0000" + OURS));
    assertEquals(COSIGNATURE_AND_NOTE, requested("x".repeat(100_000)));
  }
}
