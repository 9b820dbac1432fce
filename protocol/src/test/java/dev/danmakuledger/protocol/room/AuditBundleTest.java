package dev.danmakuledger.protocol.room;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.danmakuledger.protocol.wire.Json;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The audit bundle's shape: what the server writes reads back, and malformed bundles are refused.
 */
final class AuditBundleTest {
  private static final ObjectMapper JSON = Json.mapper();
  private static final String HASH = "ab".repeat(32);

  private static AuditBundle.Inclusion proof(int hashes) {
    return new AuditBundle.Inclusion(3, 10, Collections.nCopies(hashes, HASH));
  }

  private static AuditBundle bundle() {
    return new AuditBundle(
        AuditBundle.FORMAT, "r", 4, "djEgNA==", "note", proof(4), "d", "cmVj", proof(4), "cp");
  }

  @Test
  void whatTheServerWritesReadsBackTheSame() throws Exception {
    AuditBundle b = bundle();
    String json = JSON.writeValueAsString(b);
    assertEquals(b, JSON.readValue(json, AuditBundle.class));
    assertTrue(json.contains("\"format\":\"" + AuditBundle.FORMAT + "\""), json);
  }

  @Test
  void anotherFormatOrAMissingRoomSideIsRefused() {
    assertThrows(
        IllegalArgumentException.class,
        () -> new AuditBundle("v0", "r", 4, "e", "n", proof(1), null, null, null, null));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            new AuditBundle(
                AuditBundle.FORMAT, "r", 4, null, "n", proof(1), null, null, null, null));
    assertThrows(
        IllegalArgumentException.class,
        () -> new AuditBundle(AuditBundle.FORMAT, "r", 4, "e", "n", null, null, null, null, null));
  }

  @Test
  void aProofLongerThanAnyTreeNeedsOrMissingIsRefused() {
    assertEquals(63, proof(AuditBundle.MAX_PROOF_HASHES).proofHex().size());
    assertThrows(IllegalArgumentException.class, () -> proof(AuditBundle.MAX_PROOF_HASHES + 1));
    assertThrows(IllegalArgumentException.class, () -> new AuditBundle.Inclusion(0, 1, null));
  }

  @Test
  void theProofCannotBeChangedAfterwards() {
    List<String> hashes = new ArrayList<>(List.of(HASH));
    AuditBundle.Inclusion i = new AuditBundle.Inclusion(0, 2, hashes);
    hashes.add(HASH);
    assertEquals(1, i.proofHex().size());
    assertThrows(UnsupportedOperationException.class, () -> i.proofHex().add(HASH));
  }

  @Test
  void hostileJsonIsRefusedWhenRead() {
    assertThrows(
        JsonMappingException.class,
        () -> JSON.readValue("{\"format\":\"x\",\"room\":\"r\",\"seq\":1}", AuditBundle.class));
    String many = "[" + String.join(",", Collections.nCopies(64, "\"" + HASH + "\"")) + "]";
    assertThrows(
        JsonMappingException.class,
        () ->
            JSON.readValue(
                "{\"index\":0,\"size\":1,\"proofHex\":" + many + "}", AuditBundle.Inclusion.class));
  }
}
