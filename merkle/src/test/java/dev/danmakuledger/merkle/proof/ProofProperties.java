package dev.danmakuledger.merkle.proof;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.danmakuledger.merkle.ReferenceTree;
import dev.danmakuledger.merkle.TreeFixture;
import dev.danmakuledger.merkle.VerificationException;
import dev.danmakuledger.merkle.compact.CompactRange;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

class ProofProperties {
  private static final List<byte[]> LEAVES = ReferenceTree.leaves(600);
  private static final TreeFixture TREE = new TreeFixture(LEAVES);

  @Property(seed = "9162", tries = 300)
  void anySingleBitFlipInAnInclusionProofIsRejected(
      @ForAll @IntRange(min = 2, max = 600) int size,
      @ForAll @IntRange(min = 0, max = 599) int rawIndex,
      @ForAll @IntRange(min = 0, max = 10_000) int rawBit) {
    int index = rawIndex % size;
    List<byte[]> proof = new ArrayList<>(Proofs.inclusion(index, size, TREE));
    byte[] root = ReferenceTree.root(LEAVES.subList(0, size));
    int bit = rawBit % (proof.size() * 256);
    byte[] flipped = proof.get(bit / 256).clone();
    flipped[(bit % 256) / 8] ^= (byte) (1 << (bit % 8));
    proof.set(bit / 256, flipped);
    assertThrows(
        RootMismatchException.class,
        () -> InclusionProof.verify(index, size, LEAVES.get(index), proof, root));
  }

  @Property(seed = "9163", tries = 300)
  void consistencyProofsVerifyAndRootsAgreeWithReference(
      @ForAll @IntRange(min = 0, max = 600) int a, @ForAll @IntRange(min = 0, max = 600) int b)
      throws VerificationException {
    int size1 = Math.min(a, b);
    int size2 = Math.max(a, b);
    byte[] root1 = ReferenceTree.root(LEAVES.subList(0, size1));
    byte[] root2 = ReferenceTree.root(LEAVES.subList(0, size2));
    ConsistencyProof.verify(size1, size2, root1, root2, Proofs.consistency(size1, size2, TREE));
  }

  @Property(seed = "9164", tries = 200)
  void savedAndRestoredRangesContinueLikeUninterruptedOnes(
      @ForAll @IntRange(min = 0, max = 300) int cut,
      @ForAll @IntRange(min = 0, max = 300) int more) {
    CompactRange r = CompactRange.empty();
    for (int i = 0; i < cut; i++) {
      r.append(LEAVES.get(i));
    }
    CompactRange restored = CompactRange.fromBytes(r.toBytes());
    for (int i = cut; i < cut + more; i++) {
      restored.append(LEAVES.get(i));
    }
    assertArrayEquals(ReferenceTree.root(LEAVES.subList(0, cut + more)), restored.root());
  }
}
