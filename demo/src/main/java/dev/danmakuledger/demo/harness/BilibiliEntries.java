package dev.danmakuledger.demo.harness;

import dev.danmakuledger.edge.capture.CaptureRequest;
import dev.danmakuledger.edge.importer.BilibiliImporter;
import dev.danmakuledger.protocol.key.IdempotencyKey;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * The entries of a Bilibili danmaku XML file ({@code <d p="time,mode,size,color,unixSeconds,pool,
 * senderHash,rowId">text</d>}), turned into capture requests exactly as {@code edge-agent import}
 * does (same deterministic keys; colour = the low 24 bits of the RGB or ARGB value), but into any
 * room and device, so the demo can split the file.
 */
public final class BilibiliEntries {
  /** The bundled sample (see the README next to it in the demo module's resources). */
  public static final String SAMPLE = "/dev/danmakuledger/demo/bilibili-comments.xml";

  /** One {@code <d>} element. */
  public record Entry(
      long line,
      String playbackSeconds,
      int mode,
      int fontSize,
      int color,
      long unixSeconds,
      String sender,
      String rowId,
      String text) {

    /** The capture request of this entry on {@code deviceId} in {@code room}. */
    public CaptureRequest request(String deviceId, String room) {
      IdempotencyKey key =
          new IdempotencyKey(
              deviceId, sender, unixSeconds * 1000, BilibiliImporter.nonceFor(rowId));
      long playbackMs =
          new BigDecimal(playbackSeconds)
              .movePointRight(3)
              .setScale(0, RoundingMode.HALF_UP)
              .longValueExact();
      return new CaptureRequest(key, room, sender, text, playbackMs, mode, color, fontSize);
    }
  }

  private BilibiliEntries() {}

  /** Reads the bundled sample. */
  public static List<Entry> sample() throws IOException {
    try (InputStream in = BilibiliEntries.class.getResourceAsStream(SAMPLE)) {
      if (in == null) {
        throw new IOException("the demo data " + SAMPLE + " is missing from the classpath");
      }
      return read(in);
    }
  }

  /** Reads every well-formed entry; DTDs and external entities are refused. */
  public static List<Entry> read(InputStream in) throws IOException {
    XMLInputFactory f = XMLInputFactory.newFactory();
    f.setProperty(XMLInputFactory.SUPPORT_DTD, false);
    f.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
    List<Entry> out = new ArrayList<>();
    try {
      XMLStreamReader xml = f.createXMLStreamReader(in);
      while (xml.hasNext()) {
        if (xml.next() != XMLStreamConstants.START_ELEMENT || !xml.getLocalName().equals("d")) {
          continue;
        }
        long line = xml.getLocation().getLineNumber();
        String attribute = xml.getAttributeValue(null, "p");
        if (attribute == null) {
          throw new IOException("line " + line + ": got no p attribute, want one");
        }
        String[] p = attribute.split(",", -1);
        String text = xml.getElementText();
        if (p.length != 8) {
          throw new IOException("line " + line + ": got " + p.length + " fields in p, want 8");
        }
        out.add(
            new Entry(
                line,
                new BigDecimal(p[0]).toPlainString(),
                Integer.parseInt(p[1]),
                Integer.parseInt(p[2]),
                (int) (Long.parseLong(p[3]) & 0xFFFFFF),
                Long.parseLong(p[4]),
                p[6],
                p[7],
                text));
      }
      xml.close();
    } catch (XMLStreamException | NumberFormatException e) {
      throw new IOException("malformed Bilibili XML: " + e.getMessage(), e);
    }
    return out;
  }
}
