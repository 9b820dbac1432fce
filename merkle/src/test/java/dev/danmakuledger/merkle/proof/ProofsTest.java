package dev.danmakuledger.merkle.proof;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.danmakuledger.merkle.NodeId;
import dev.danmakuledger.merkle.ReferenceTree;
import dev.danmakuledger.merkle.TreeFixture;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Cross-checks generated proofs and the verifiers against the recursive RFC 9162 reference: all
 * (index, size) and (size1, size2) pairs up to 64 leaves, sampled pairs up to 256, and random
 * larger trees.
 */
class ProofsTest {
  private static final List<byte[]> LEAVES = ReferenceTree.leaves(1100);

  @Test
  void inclusionProofsMatchReferenceForAllPairsUpTo64() throws Exception {
    TreeFixture tree = new TreeFixture(LEAVES.subList(0, 64));
    for (int size = 1; size <= 64; size++) {
      for (int index = 0; index < size; index++) {
        checkInclusion(tree, index, size);
      }
    }
  }

  @Test
  void consistencyProofsMatchReferenceForAllPairsUpTo64() throws Exception {
    TreeFixture tree = new TreeFixture(LEAVES.subList(0, 64));
    for (int size2 = 0; size2 <= 64; size2++) {
      for (int size1 = 0; size1 <= size2; size1++) {
        checkConsistency(tree, size1, size2);
      }
    }
  }

  @Test
  void sampledPairsUpTo256AndRandomLargerTreesMatchReference() throws Exception {
    Random rnd = new Random(20261130L);
    TreeFixture small = new TreeFixture(LEAVES.subList(0, 256));
    for (int trial = 0; trial < 600; trial++) {
      int size = 1 + rnd.nextInt(256);
      checkInclusion(small, rnd.nextInt(size), size);
      checkConsistency(small, rnd.nextInt(size + 1), size);
    }
    TreeFixture large = new TreeFixture(LEAVES);
    for (int trial = 0; trial < 60; trial++) {
      int size = 257 + rnd.nextInt(LEAVES.size() - 256);
      checkInclusion(large, rnd.nextInt(size), size);
      checkConsistency(large, rnd.nextInt(size + 1), size);
    }
  }

  @Test
  void nodesAreOnlyPerfectSubtreesInsideTheTree() {
    for (long size = 1; size <= 64; size++) {
      for (long index = 0; index < size; index++) {
        for (NodeId id : Proofs.inclusionNodes(index, size)) {
          assertInside(id, size);
        }
      }
      for (long size1 = 0; size1 <= size; size1++) {
        for (NodeId id : Proofs.consistencyNodes(size1, size)) {
          assertInside(id, size);
        }
      }
    }
  }

  @Test
  void inclusionNodesForSevenLeafTree() {
    // RFC 9162 §2.1.5: the audit path for d0 in the 7-leaf tree is [b, h, l]; l covers leaves
    // 4..6, not a perfect subtree, so it is composed from k = (1,2) and d6 = (0,6), lowest first.
    assertEquals(
        List.of(new NodeId(0, 1), new NodeId(1, 1), new NodeId(0, 6), new NodeId(1, 2)),
        Proofs.inclusionNodes(0, 7));
    assertEquals(3, Proofs.inclusion(0, 7, new TreeFixture(LEAVES.subList(0, 7))).size());
  }

  @Test
  void consistencyNodesForRfcExample() {
    // RFC 9162 §2.1.5: PROOF(3, D[7]) = [c, d, g, l].
    assertEquals(4, Proofs.consistency(3, 7, new TreeFixture(LEAVES.subList(0, 7))).size());
    assertEquals(List.of(), Proofs.consistencyNodes(4, 4));
    assertEquals(List.of(), Proofs.consistencyNodes(0, 9));
  }

  @Test
  void rejectsOutOfRangeArguments() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Proofs.inclusionNodes(5, 5));
    assertEquals("index: got 5, want 0 <= index < size 5", e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> Proofs.inclusionNodes(-1, 5));
    assertThrows(IllegalArgumentException.class, () -> Proofs.consistencyNodes(6, 5));
    assertThrows(IllegalArgumentException.class, () -> Proofs.consistencyNodes(-1, 5));
  }

  @Test
  void rejectsWrongLengthHashFromSource() {
    assertThrows(IllegalArgumentException.class, () -> Proofs.inclusion(0, 2, id -> new byte[7]));
  }

  private static void checkInclusion(TreeFixture tree, int index, int size) throws Exception {
    List<byte[]> leaves = LEAVES.subList(0, size);
    List<byte[]> want = ReferenceTree.path(index, leaves);
    List<byte[]> got = Proofs.inclusion(index, size, tree);
    assertProof(want, got, "inclusion " + index + "/" + size);
    byte[] root = ReferenceTree.root(leaves);
    InclusionProof.verify(index, size, leaves.get(index), got, root);
    assertArrayEquals(root, InclusionProof.rootFromProof(index, size, leaves.get(index), got));
  }

  private static void checkConsistency(TreeFixture tree, int size1, int size2) throws Exception {
    List<byte[]> want = ReferenceTree.proof(size1, LEAVES.subList(0, size2));
    List<byte[]> got = Proofs.consistency(size1, size2, tree);
    assertProof(want, got, "consistency " + size1 + "->" + size2);
    ConsistencyProof.verify(
        size1,
        size2,
        ReferenceTree.root(LEAVES.subList(0, size1)),
        ReferenceTree.root(LEAVES.subList(0, size2)),
        got);
  }

  private static void assertProof(List<byte[]> want, List<byte[]> got, String what) {
    assertEquals(want.size(), got.size(), what + ": length");
    for (int i = 0; i < want.size(); i++) {
      assertArrayEquals(want.get(i), got.get(i), what + ": entry " + i);
    }
  }

  private static void assertInside(NodeId id, long size) {
    if (id.end() > size) {
      throw new AssertionError(id + " extends past size " + size);
    }
  }
}
