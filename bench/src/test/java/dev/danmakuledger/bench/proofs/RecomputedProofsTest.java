package dev.danmakuledger.bench.proofs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.danmakuledger.merkle.NodeId;
import dev.danmakuledger.merkle.compact.CompactRange;
import dev.danmakuledger.merkle.hash.Rfc6962;
import dev.danmakuledger.merkle.proof.InclusionProof;
import dev.danmakuledger.merkle.proof.Proofs;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The baseline of {@code bin/bench proofs} computes the same proofs as the stored-node path it is
 * compared with, for every index of every size 1..70.
 */
class RecomputedProofsTest {
  @Test
  void agreesWithTheStoredNodeProofsAndVerifies() throws Exception {
    for (int size = 1; size <= 70; size++) {
      byte[][] leaves = new byte[size][];
      Map<NodeId, byte[]> nodes = new HashMap<>();
      CompactRange range = CompactRange.empty();
      for (int i = 0; i < size; i++) {
        leaves[i] = Rfc6962.leafHash(ByteBuffer.allocate(4).putInt(i).array());
        range.append(leaves[i], nodes::put);
      }
      assertArrayEquals(range.root(), RecomputedProofs.root(leaves, 0, size), "root of " + size);
      for (int index = 0; index < size; index++) {
        List<byte[]> want = Proofs.inclusion(index, size, nodes::get);
        List<byte[]> got = RecomputedProofs.inclusion(leaves, index);
        assertEquals(want.size(), got.size(), "proof length for " + index + " of " + size);
        for (int k = 0; k < want.size(); k++) {
          assertArrayEquals(want.get(k), got.get(k), "hash " + k + " for " + index + " of " + size);
        }
        InclusionProof.verify(index, size, leaves[index], got, range.root());
      }
    }
  }

  @Test
  void refusesIndicesOutsideTheLog() {
    byte[][] leaves = {Rfc6962.leafHash(new byte[] {1}), Rfc6962.leafHash(new byte[] {2})};
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> RecomputedProofs.inclusion(leaves, 2));
    assertEquals("index: got 2, want 0..1", e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> RecomputedProofs.inclusion(leaves, -1));
  }
}
