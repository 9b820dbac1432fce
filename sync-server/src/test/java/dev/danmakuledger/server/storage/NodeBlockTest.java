package dev.danmakuledger.server.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

final class NodeBlockTest {
  static byte[] hash(int fill) {
    byte[] h = new byte[32];
    Arrays.fill(h, (byte) fill);
    return h;
  }

  @Test
  void encodedNodesDecodeToTheSameNodes() {
    List<NodeRow> nodes =
        List.of(
            new NodeRow(0, 6, hash(1)), new NodeRow(0, 7, hash(2)), new NodeRow(63, 0, hash(3)));
    byte[] bytes = NodeBlock.encode(nodes);
    assertEquals(3 * NodeBlock.ENTRY, bytes.length);
    NodeBlock block = new NodeBlock(6, 8, NodeBlock.decode(bytes));
    assertArrayEquals(hash(2), block.hash(0, 7).orElseThrow());
    assertArrayEquals(hash(3), block.hash(63, 0).orElseThrow());
    assertTrue(block.hash(1, 3).isEmpty());
  }

  @Test
  void truncatedBlockIsRefused() {
    byte[] bytes = NodeBlock.encode(List.of(new NodeRow(0, 0, hash(1))));
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () -> NodeBlock.decode(Arrays.copyOf(bytes, bytes.length - 1)));
    assertEquals("node block: got 40 bytes, want a multiple of 41", e.getMessage());
  }

  @Test
  void invertedLeafRangeIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> new NodeBlock(5, 4, List.of()));
  }
}
