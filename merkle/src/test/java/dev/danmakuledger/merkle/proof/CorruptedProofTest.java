package dev.danmakuledger.merkle.proof;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.danmakuledger.merkle.ReferenceTree;
import dev.danmakuledger.merkle.TreeFixture;
import dev.danmakuledger.merkle.VerificationException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every corruption of a valid proof or of its parameters must be rejected with a typed error. */
class CorruptedProofTest {
  private static final int SIZE = 21;
  private static final int INDEX = 6;
  private static final int OLD = 11;
  private static final List<byte[]> LEAVES = ReferenceTree.leaves(SIZE);
  private static final TreeFixture TREE = new TreeFixture(LEAVES);
  private static final byte[] ROOT = ReferenceTree.root(LEAVES);
  private static final byte[] OLD_ROOT = ReferenceTree.root(LEAVES.subList(0, OLD));

  record Case(
      long index,
      long size,
      byte[] leaf,
      List<byte[]> proof,
      byte[] root,
      Class<? extends VerificationException> want) {}

  static Stream<Arguments> inclusionCorruptions() {
    List<byte[]> good = Proofs.inclusion(INDEX, SIZE, TREE);
    byte[] leaf = LEAVES.get(INDEX);
    return Stream.of(
        named(
            "wrong-leaf",
            new Case(INDEX, SIZE, LEAVES.get(INDEX + 1), good, ROOT, RootMismatchException.class)),
        named(
            "truncated-proof",
            new Case(
                INDEX,
                SIZE,
                leaf,
                good.subList(0, good.size() - 1),
                ROOT,
                InvalidProofException.class)),
        named(
            "extra-hash",
            new Case(
                INDEX,
                SIZE,
                leaf,
                with(good, l -> l.add(ROOT)),
                ROOT,
                InvalidProofException.class)),
        named(
            "flipped-bit-in-root",
            new Case(INDEX, SIZE, leaf, good, flip(ROOT, 17), RootMismatchException.class)),
        named(
            "flipped-bit-in-proof",
            new Case(
                INDEX,
                SIZE,
                leaf,
                with(good, l -> l.set(1, flip(l.get(1), 0))),
                ROOT,
                RootMismatchException.class)),
        named(
            "wrong-index",
            new Case(INDEX + 1, SIZE, leaf, good, ROOT, RootMismatchException.class)),
        named("wrong-size", new Case(INDEX, 16, leaf, good, ROOT, VerificationException.class)),
        named(
            "index-beyond-size",
            new Case(SIZE, SIZE, leaf, good, ROOT, InvalidProofException.class)),
        named("negative-index", new Case(-1, SIZE, leaf, good, ROOT, InvalidProofException.class)),
        named(
            "swapped-hashes",
            new Case(
                INDEX,
                SIZE,
                leaf,
                with(good, l -> Collections.swap(l, 0, 1)),
                ROOT,
                VerificationException.class)),
        named(
            "short-hash-in-proof",
            new Case(
                INDEX,
                SIZE,
                leaf,
                with(good, l -> l.set(0, new byte[31])),
                ROOT,
                InvalidProofException.class)),
        named(
            "short-leaf-hash",
            new Case(INDEX, SIZE, new byte[31], good, ROOT, InvalidProofException.class)),
        named(
            "short-root",
            new Case(INDEX, SIZE, leaf, good, new byte[31], InvalidProofException.class)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("inclusionCorruptions")
  void inclusionCorruptionIsRejected(Case c) {
    assertThrows(
        c.want(), () -> InclusionProof.verify(c.index(), c.size(), c.leaf(), c.proof(), c.root()));
  }

  record ConsistencyCase(
      long size1,
      long size2,
      byte[] root1,
      byte[] root2,
      List<byte[]> proof,
      Class<? extends VerificationException> want) {}

  static Stream<Arguments> consistencyCorruptions() {
    List<byte[]> good = Proofs.consistency(OLD, SIZE, TREE);
    return Stream.of(
        named(
            "truncated-proof",
            new ConsistencyCase(
                OLD,
                SIZE,
                OLD_ROOT,
                ROOT,
                good.subList(0, good.size() - 1),
                InvalidProofException.class)),
        named(
            "extra-hash",
            new ConsistencyCase(
                OLD,
                SIZE,
                OLD_ROOT,
                ROOT,
                with(good, l -> l.add(ROOT)),
                InvalidProofException.class)),
        named(
            "empty-proof",
            new ConsistencyCase(OLD, SIZE, OLD_ROOT, ROOT, List.of(), InvalidProofException.class)),
        named(
            "flipped-bit-in-old-root",
            new ConsistencyCase(
                OLD, SIZE, flip(OLD_ROOT, 3), ROOT, good, RootMismatchException.class)),
        named(
            "flipped-bit-in-new-root",
            new ConsistencyCase(
                OLD, SIZE, OLD_ROOT, flip(ROOT, 250), good, RootMismatchException.class)),
        named(
            "flipped-bit-in-proof",
            new ConsistencyCase(
                OLD,
                SIZE,
                OLD_ROOT,
                ROOT,
                with(good, l -> l.set(0, flip(l.get(0), 9))),
                RootMismatchException.class)),
        named(
            "swapped-hashes",
            new ConsistencyCase(
                OLD,
                SIZE,
                OLD_ROOT,
                ROOT,
                with(good, l -> Collections.swap(l, 0, 1)),
                RootMismatchException.class)),
        named(
            "wrong-size",
            new ConsistencyCase(OLD + 1, SIZE, OLD_ROOT, ROOT, good, VerificationException.class)),
        named(
            "old-larger-than-new",
            new ConsistencyCase(SIZE + 1, SIZE, OLD_ROOT, ROOT, good, InvalidProofException.class)),
        named(
            "equal-sizes-different-roots",
            new ConsistencyCase(
                SIZE, SIZE, OLD_ROOT, ROOT, List.of(), RootMismatchException.class)),
        named(
            "equal-sizes-non-empty-proof",
            new ConsistencyCase(SIZE, SIZE, ROOT, ROOT, good, InvalidProofException.class)),
        named(
            "from-zero-non-empty-proof",
            new ConsistencyCase(0, SIZE, OLD_ROOT, ROOT, good, InvalidProofException.class)),
        named(
            "short-hash-in-proof",
            new ConsistencyCase(
                OLD,
                SIZE,
                OLD_ROOT,
                ROOT,
                with(good, l -> l.set(0, new byte[1])),
                InvalidProofException.class)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("consistencyCorruptions")
  void consistencyCorruptionIsRejected(ConsistencyCase c) {
    assertThrows(
        c.want(),
        () -> ConsistencyProof.verify(c.size1(), c.size2(), c.root1(), c.root2(), c.proof()));
  }

  @org.junit.jupiter.api.Test
  void rootMismatchCarriesExpectedAndComputedRoots() {
    List<byte[]> good = Proofs.inclusion(INDEX, SIZE, TREE);
    byte[] wrongRoot = flip(ROOT, 0);
    RootMismatchException e =
        assertThrows(
            RootMismatchException.class,
            () -> InclusionProof.verify(INDEX, SIZE, LEAVES.get(INDEX), good, wrongRoot));
    assertArrayEquals(wrongRoot, e.expected());
    assertArrayEquals(ROOT, e.computed());
  }

  private static Arguments named(String name, Object c) {
    return Arguments.of(org.junit.jupiter.api.Named.of(name, c));
  }

  private static List<byte[]> with(
      List<byte[]> proof, java.util.function.Consumer<List<byte[]>> edit) {
    List<byte[]> copy = new ArrayList<>(proof);
    edit.accept(copy);
    return copy;
  }

  private static byte[] flip(byte[] hash, int bit) {
    byte[] out = hash.clone();
    out[bit / 8] ^= (byte) (1 << (bit % 8));
    return out;
  }
}
