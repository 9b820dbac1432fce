package dev.danmakuledger.ui.testing;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;

/**
 * Danmaku from the shared Bilibili sample ({@code shared/data/bilibili-comments.xml}, from
 * bilibili/DanmakuFlameMaster, Apache License 2.0): real Chinese text, emoji-like kaomoji and
 * colours. Falls back to a few built-in lines when the shared file is not beside the repository.
 */
public final class BilibiliSample {
  /** One {@code <d>} entry. */
  public record Entry(
      long playbackMs, int mode, int fontSize, int color, String sender, String text) {}

  private BilibiliSample() {}

  public static List<Entry> load(int max) {
    for (Path p :
        List.of(
            Path.of("/work/shared/data/bilibili-comments.xml"),
            Path.of("../../shared/data/bilibili-comments.xml"),
            Path.of("../shared/data/bilibili-comments.xml"))) {
      if (Files.isRegularFile(p)) {
        try (InputStream in = Files.newInputStream(p)) {
          return parse(in, max);
        } catch (IOException | ParserConfigurationException | SAXException e) {
          throw new IllegalStateException("cannot read " + p, e);
        }
      }
    }
    return List.of(
        new Entry(205_225, 4, 25, 6830715, "47f24a19", "厉害了我的弹幕君！"),
        new Entry(14_810, 1, 25, 16777215, "fd3b921a", "合影"),
        new Entry(87_306, 1, 25, 0, "78673da7", "_(•̀ω•́ 」∠)_见一次进一次"),
        new Entry(188_712, 1, 25, 16707842, "0bdc3c05", "卡的我手机都不动了(;｀O´)o额????"),
        new Entry(5_860, 5, 25, 15138834, "fbcfc551", "高级弹幕合影 🎉"));
  }

  static List<Entry> parse(InputStream in, int max)
      throws ParserConfigurationException, IOException, SAXException {
    DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
    f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
    f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    NodeList ds = f.newDocumentBuilder().parse(in).getElementsByTagName("d");
    List<Entry> out = new ArrayList<>();
    for (int i = 0; i < ds.getLength() && out.size() < max; i++) {
      Element d = (Element) ds.item(i);
      String[] p = d.getAttribute("p").split(",");
      String text = d.getTextContent().strip();
      if (text.isEmpty() || text.codePointCount(0, text.length()) > 300 || p.length < 7) {
        continue;
      }
      out.add(
          new Entry(
              Math.round(Double.parseDouble(p[0]) * 1000),
              Math.max(1, Math.min(8, Integer.parseInt(p[1]))),
              Integer.parseInt(p[2]),
              Integer.parseInt(p[3]) & 0xFFFFFF,
              p[6],
              text));
    }
    return out;
  }
}
