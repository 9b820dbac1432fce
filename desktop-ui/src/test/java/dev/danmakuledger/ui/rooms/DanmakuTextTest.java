package dev.danmakuledger.ui.rooms;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

final class DanmakuTextTest {
  /** Line 23 of the bundled Bilibili sample, a positioned (mode 7) danmaku. */
  static final String POSITIONED =
      "[1,500,\"0.98-0.1\",4.5,\"好想跟你表白❤❤❤❤❤\",1,100,600,200,500,0,true,\"黑体\",1]";

  @Test
  void positionedDanmakuShowTheirTextWithABadge() {
    assertEquals(new DanmakuText("positioned", "好想跟你表白❤❤❤❤❤"), DanmakuText.of(7, POSITIONED));
  }

  @Test
  void aPositionedArrayCutShortShowsItsTextAsFarAsItGoesOnOneLine() {
    // line 1002 of the bundled sample, which ends inside the array
    String cut = "[259,206,\"1-1\",7,\"  ***/n    *****/n *\",0,";
    assertEquals(new DanmakuText("positioned", "***     *****  *"), DanmakuText.of(7, cut));
    assertEquals(
        new DanmakuText("positioned", "ab\"c"), DanmakuText.of(7, "[1,2,\"x,y\",4,\"ab\\\"c"));
  }

  @Test
  void aPositionedDanmakuThatIsNotAnArrayIsShownAsCaptured() {
    assertEquals(new DanmakuText("positioned", "[1,2"), DanmakuText.of(7, "[1,2"));
    assertEquals(new DanmakuText("positioned", "plain"), DanmakuText.of(7, "plain"));
    assertEquals(new DanmakuText("positioned", "[1,2,3,4,5]"), DanmakuText.of(7, "[1,2,3,4,5]"));
  }

  @Test
  void scriptDanmakuShowOneShortLineWithABadge() {
    assertEquals(
        new DanmakuText("script", "var a = 1; a++;"), DanmakuText.of(8, "var a = 1;\n  a++;"));
    String longScript = "x".repeat(200);
    assertEquals(81, DanmakuText.of(8, longScript).text().length());
  }

  @Test
  void plainModesAreShownAsCaptured() {
    for (int mode : new int[] {1, 4, 5, 6}) {
      assertEquals(new DanmakuText(null, POSITIONED), DanmakuText.of(mode, POSITIONED));
    }
  }
}
