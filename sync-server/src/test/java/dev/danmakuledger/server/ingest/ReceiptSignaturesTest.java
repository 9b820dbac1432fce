package dev.danmakuledger.server.ingest;

import static dev.danmakuledger.server.ingest.ReceiptSignatures.COSIGNATURE;
import static dev.danmakuledger.server.ingest.ReceiptSignatures.COSIGNATURE_AND_NOTE;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Reading {@code Danmaku-Receipt-Signatures} (docs/sync.md, "Receipts"). */
class ReceiptSignaturesTest {
  @Test
  void theCosignatureAloneOnlyWhenTheListNamesIt() {
    assertEquals(COSIGNATURE, ReceiptSignatures.requestedBy("cosignature"));
    assertEquals(COSIGNATURE, ReceiptSignatures.requestedBy(" COSIGNATURE "));
    assertEquals(COSIGNATURE, ReceiptSignatures.requestedBy("note, cosignature"));
    assertEquals(COSIGNATURE, ReceiptSignatures.requestedBy("x,\tcosignature\t,y"));
  }

  @Test
  void missingMalformedAndHostileValuesAskForBoth() {
    assertEquals(COSIGNATURE_AND_NOTE, ReceiptSignatures.requestedBy(null));
    assertEquals(COSIGNATURE_AND_NOTE, ReceiptSignatures.requestedBy(""));
    assertEquals(COSIGNATURE_AND_NOTE, ReceiptSignatures.requestedBy(","));
    assertEquals(COSIGNATURE_AND_NOTE, ReceiptSignatures.requestedBy("note"));
    assertEquals(COSIGNATURE_AND_NOTE, ReceiptSignatures.requestedBy("cosignatures"));
    assertEquals(COSIGNATURE_AND_NOTE, ReceiptSignatures.requestedBy("cosignature;q=1"));
    assertEquals(COSIGNATURE_AND_NOTE, ReceiptSignatures.requestedBy("co signature"));
    assertEquals(COSIGNATURE_AND_NOTE, ReceiptSignatures.requestedBy("\u0000cosignature"));
    assertEquals(COSIGNATURE_AND_NOTE, ReceiptSignatures.requestedBy(",".repeat(100_000)));
  }
}
