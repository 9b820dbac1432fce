package dev.danmakuledger.ui.rooms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import javafx.scene.paint.Color;
import org.junit.jupiter.api.Test;

class DanmakuCellTest {
  @Test
  void onlyColoursHardToReadOnTheDarkTailGetAnOutline() {
    assertEquals(0.0, RoomsView.DanmakuCell.luminance(Color.BLACK), 1e-9);
    assertEquals(1.0, RoomsView.DanmakuCell.luminance(Color.WHITE), 1e-9);
    assertTrue(RoomsView.DanmakuCell.luminance(Color.rgb(0x33, 0x66, 0xCC)) < 0.15, "mid blue");
    assertTrue(RoomsView.DanmakuCell.luminance(Color.NAVY) < 0.15, "navy");
    assertTrue(RoomsView.DanmakuCell.luminance(Color.RED) >= 0.15, "red");
    assertTrue(RoomsView.DanmakuCell.luminance(Color.LIME) >= 0.15, "lime");
  }
}
