package dev.danmakuledger.ui.app;

import java.util.List;
import javafx.scene.text.Font;

/**
 * Picks a font family that has CJK glyphs, so danmaku in Chinese or Japanese render as text, not
 * boxes; JavaFX falls back from it to other installed fonts for glyphs it lacks (such as emoji).
 */
final class Fonts {
  static final List<String> CJK_FAMILIES =
      List.of(
          "Noto Sans CJK SC",
          "Noto Sans CJK JP",
          "Noto Sans SC",
          "Source Han Sans SC",
          "WenQuanYi Micro Hei",
          "WenQuanYi Zen Hei",
          "Droid Sans Fallback",
          "Microsoft YaHei",
          "PingFang SC");

  private Fonts() {}

  /** The first installed CJK-capable family, else the platform default. Call on the FX thread. */
  static String family() {
    List<String> installed = Font.getFamilies();
    for (String f : CJK_FAMILIES) {
      if (installed.contains(f)) {
        return f;
      }
    }
    return Font.getDefault().getFamily();
  }
}
