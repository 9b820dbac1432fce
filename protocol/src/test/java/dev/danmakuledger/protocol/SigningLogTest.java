package dev.danmakuledger.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.Checkpoints;
import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import dev.danmakuledger.merkle.hash.Rfc6962;
import dev.danmakuledger.protocol.wire.BatchRequest;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

final class SigningLogTest {
  private static final SecureRandom SEEDED = new SecureRandom(new byte[] {7});

  @Test
  void batchesCarryTheNextIndicesAndACheckpointOfTheWholeLog() throws Exception {
    SigningLog log = SigningLog.create("kiosk-1", SEEDED);
    List<byte[]> leaves = new ArrayList<>();
    BatchRequest first = log.append(bytes("a", "b", "c"), leaves::add, null);
    BatchRequest second = log.append(bytes("d", "e"), leaves::add, null);

    assertEquals(0, first.oldSize());
    assertEquals(3, second.oldSize());
    assertEquals(List.of(3L, 4L), second.records().stream().map(r -> r.index()).toList());
    assertArrayEquals(
        "e".getBytes(StandardCharsets.UTF_8),
        Base64.getDecoder().decode(second.records().get(1).canonical()));
    assertNull(second.metadata());
    assertEquals(5, log.size());
    assertEquals(5, leaves.size());
    assertArrayEquals(Rfc6962.leafHash("a".getBytes(StandardCharsets.UTF_8)), leaves.get(0));
    assertArrayEquals(mth(leaves), log.root());

    Checkpoint cp =
        Checkpoints.open(second.checkpoint(), DeviceLog.origin("kiosk-1"), log.signer().verifier());
    assertEquals(5, cp.size());
    assertArrayEquals(log.root(), cp.root());
  }

  @Test
  void aCopyGrowsOnItsOwn() {
    SigningLog log = SigningLog.create("kiosk-2", SEEDED);
    log.append(bytes("a"), leaf -> {}, null);
    SigningLog draft = log.copy();
    draft.append(bytes("b"), leaf -> {}, null);
    assertEquals(1, log.size());
    assertEquals(2, draft.size());
    assertEquals(log.signer(), draft.signer());
  }

  @Test
  void aMalformedDeviceIdIsRefused() {
    NoteSigner signer = NoteSigner.generate(DeviceLog.origin("ok"), SEEDED);
    assertThrows(IllegalArgumentException.class, () -> SigningLog.of("bad id", signer));
    assertThrows(IllegalArgumentException.class, () -> SigningLog.of("", signer));
    assertThrows(NullPointerException.class, () -> SigningLog.of("ok", null));
  }

  private static List<byte[]> bytes(String... texts) {
    List<byte[]> out = new ArrayList<>();
    for (String t : texts) {
      out.add(t.getBytes(StandardCharsets.UTF_8));
    }
    return out;
  }

  /** RFC 6962 §2.1 MTH, recomputed from the leaf hashes. */
  private static byte[] mth(List<byte[]> leaves) {
    if (leaves.size() == 1) {
      return leaves.get(0);
    }
    int k = Integer.highestOneBit(leaves.size() - 1);
    return Rfc6962.nodeHash(mth(leaves.subList(0, k)), mth(leaves.subList(k, leaves.size())));
  }
}
