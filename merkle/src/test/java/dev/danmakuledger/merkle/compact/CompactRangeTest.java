package dev.danmakuledger.merkle.compact;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.danmakuledger.merkle.NodeId;
import dev.danmakuledger.merkle.ReferenceTree;
import dev.danmakuledger.merkle.hash.Rfc6962;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class CompactRangeTest {

  @Test
  void rootMatchesReferenceForEverySizeUpTo256() {
    List<byte[]> leaves = ReferenceTree.leaves(256);
    CompactRange range = CompactRange.empty();
    assertArrayEquals(ReferenceTree.root(List.of()), range.root(), "size 0");
    for (int n = 1; n <= 256; n++) {
      range.append(leaves.get(n - 1));
      assertArrayEquals(ReferenceTree.root(leaves.subList(0, n)), range.root(), "size " + n);
      assertEquals(Long.bitCount(n), range.hashes().size(), "state hashes at size " + n);
    }
  }

  @Test
  void visitorReportsEveryPerfectNodeWithItsHash() {
    List<byte[]> leaves = ReferenceTree.leaves(37);
    Map<NodeId, byte[]> seen = new HashMap<>();
    CompactRange range = CompactRange.empty();
    for (byte[] leaf : leaves) {
      range.append(
          leaf,
          (id, hash) -> {
            if (seen.put(id, hash) != null) {
              throw new AssertionError("visited twice: " + id);
            }
          });
    }
    int perfectNodes = 0;
    for (int level = 0; (1 << level) <= 37; level++) {
      for (long index = 0; (index + 1) << level <= 37; index++) {
        NodeId id = new NodeId(level, index);
        byte[] want = ReferenceTree.root(leaves.subList((int) id.begin(), (int) id.end()));
        assertArrayEquals(want, seen.get(id), "node " + id);
        perfectNodes++;
      }
    }
    assertEquals(perfectNodes, seen.size());
  }

  @Test
  void mergingAdjacentRangesEqualsAppendingLeaves() {
    List<byte[]> leaves = ReferenceTree.leaves(70);
    Random rnd = new Random(7);
    for (int trial = 0; trial < 300; trial++) {
      int a = rnd.nextInt(71);
      int b = a + rnd.nextInt(71 - a);
      int c = b + rnd.nextInt(71 - b);
      CompactRange left = rangeOf(leaves, a, b);
      CompactRange right = rangeOf(leaves, b, c);
      Map<NodeId, byte[]> visited = new HashMap<>();
      left.appendRange(right, visited::put);
      CompactRange direct = rangeOf(leaves, a, c);
      assertEquals(a, left.begin());
      assertEquals(c, left.end());
      assertHashesEqual(direct.hashes(), left.hashes(), "[" + a + "," + b + ")+[" + b + "," + c);
      for (Map.Entry<NodeId, byte[]> e : visited.entrySet()) {
        NodeId id = e.getKey();
        assertArrayEquals(
            ReferenceTree.root(leaves.subList((int) id.begin(), (int) id.end())),
            e.getValue(),
            "merged node " + id);
      }
    }
  }

  @Test
  void appendRangeRejectsNonAdjacentRange() {
    List<byte[]> leaves = ReferenceTree.leaves(6);
    CompactRange left = rangeOf(leaves, 0, 3);
    CompactRange gap = rangeOf(leaves, 4, 6);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> left.appendRange(gap, null));
    assertEquals("other.begin: got 4, want 3 (ranges must be adjacent)", e.getMessage());
  }

  @Test
  void toBytesRoundTripsAndContinuesIdentically() {
    List<byte[]> leaves = ReferenceTree.leaves(100);
    CompactRange range = rangeOf(leaves, 5, 77);
    CompactRange restored = CompactRange.fromBytes(range.toBytes());
    assertEquals(5, restored.begin());
    assertEquals(77, restored.end());
    for (int i = 77; i < 100; i++) {
      range.append(leaves.get(i));
      restored.append(leaves.get(i));
    }
    assertHashesEqual(range.hashes(), restored.hashes(), "after continuing");
    CompactRange fromZero = rangeOf(leaves, 0, 41);
    assertArrayEquals(
        fromZero.root(), CompactRange.fromBytes(fromZero.toBytes()).root(), "root of [0,41)");
  }

  @Test
  void fromBytesRejectsUnknownVersion() {
    byte[] bytes = CompactRange.empty().toBytes();
    bytes[0] = 2;
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> CompactRange.fromBytes(bytes));
    assertEquals("compact range version: got 2, want 1", e.getMessage());
  }

  @Test
  void fromBytesRejectsTruncatedAndTrailingBytes() {
    byte[] good = rangeOf(ReferenceTree.leaves(7), 0, 7).toBytes();
    byte[] truncated = java.util.Arrays.copyOf(good, good.length - 1);
    byte[] trailing = java.util.Arrays.copyOf(good, good.length + 32);
    assertThrows(IllegalArgumentException.class, () -> CompactRange.fromBytes(truncated));
    assertThrows(IllegalArgumentException.class, () -> CompactRange.fromBytes(trailing));
    assertThrows(IllegalArgumentException.class, () -> CompactRange.fromBytes(new byte[5]));
  }

  @Test
  void fromBytesRejectsInvertedBounds() {
    java.nio.ByteBuffer buf = java.nio.ByteBuffer.allocate(17);
    buf.put((byte) 1).putLong(9).putLong(3);
    assertThrows(IllegalArgumentException.class, () -> CompactRange.fromBytes(buf.array()));
  }

  @Test
  void ofValidatesHashCountAndLength() {
    IllegalArgumentException count =
        assertThrows(
            IllegalArgumentException.class, () -> CompactRange.of(0, 3, List.of(new byte[32])));
    assertEquals("hashes for [0, 3): got 1, want 2", count.getMessage());
    assertThrows(
        IllegalArgumentException.class, () -> CompactRange.of(0, 1, List.of(new byte[31])));
    assertThrows(IllegalArgumentException.class, () -> CompactRange.of(-1, 1, List.of()));
  }

  @Test
  void rootRequiresBeginZero() {
    CompactRange r = rangeOf(ReferenceTree.leaves(4), 1, 4);
    assertThrows(IllegalStateException.class, r::root);
  }

  @Test
  void appendRejectsWrongLengthLeaf() {
    assertThrows(IllegalArgumentException.class, () -> CompactRange.empty().append(new byte[3]));
  }

  @Test
  void copyIsIndependent() {
    List<byte[]> leaves = ReferenceTree.leaves(3);
    CompactRange a = rangeOf(leaves, 0, 2);
    CompactRange b = a.copy();
    b.append(leaves.get(2));
    assertEquals(2, a.end());
    assertArrayEquals(ReferenceTree.root(leaves.subList(0, 2)), a.root());
  }

  @Test
  void emptyRangeRootIsEmptyTreeHash() {
    assertArrayEquals(Rfc6962.emptyRoot(), CompactRange.empty().root());
  }

  static CompactRange rangeOf(List<byte[]> leaves, int begin, int end) {
    List<NodeId> ids = new ArrayList<>();
    CompactRange.rangeNodes(begin, end, ids);
    List<byte[]> hashes = new ArrayList<>();
    for (NodeId id : ids) {
      hashes.add(ReferenceTree.root(leaves.subList((int) id.begin(), (int) id.end())));
    }
    return CompactRange.of(begin, end, hashes);
  }

  private static void assertHashesEqual(List<byte[]> want, List<byte[]> got, String what) {
    assertEquals(want.size(), got.size(), what + ": hash count");
    for (int i = 0; i < want.size(); i++) {
      assertArrayEquals(want.get(i), got.get(i), what + ": hash " + i);
    }
  }
}
