package dev.danmakuledger.ui.testing;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;

/**
 * Danmaku from the Bilibili sample in the test resources (from bilibili/DanmakuFlameMaster, Apache
 * License 2.0; see the README beside it): real Chinese text, kaomoji and colours.
 */
public final class BilibiliSample {
  /** One {@code <d>} entry. */
  public record Entry(
      long playbackMs, int mode, int fontSize, int color, String sender, String text) {}

  private BilibiliSample() {}

  public static List<Entry> load(int max) {
    try (InputStream in = BilibiliSample.class.getResourceAsStream("bilibili-comments.xml")) {
      if (in == null) {
        throw new IllegalStateException("bilibili-comments.xml is missing from the test resources");
      }
      return parse(in, max);
    } catch (IOException | ParserConfigurationException | SAXException e) {
      throw new IllegalStateException("cannot read the Bilibili sample", e);
    }
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
