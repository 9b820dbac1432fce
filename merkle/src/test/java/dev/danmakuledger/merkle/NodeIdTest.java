package dev.danmakuledger.merkle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class NodeIdTest {
  @Test
  void coverageParentAndSibling() {
    NodeId n = new NodeId(2, 3);
    assertEquals(12, n.begin());
    assertEquals(16, n.end());
    assertEquals(new NodeId(3, 1), n.parent());
    assertEquals(new NodeId(2, 2), n.sibling());
    assertEquals(new NodeId(0, 5), new NodeId(0, 4).sibling());
  }

  @Test
  void rejectsOutOfRangeLevelAndIndex() {
    IllegalArgumentException level =
        assertThrows(IllegalArgumentException.class, () -> new NodeId(-1, 0));
    assertEquals("level: got -1, want 0..62", level.getMessage());
    assertThrows(IllegalArgumentException.class, () -> new NodeId(63, 0));
    assertThrows(IllegalArgumentException.class, () -> new NodeId(0, -1));
    assertThrows(IllegalArgumentException.class, () -> new NodeId(62, 2));
  }
}
