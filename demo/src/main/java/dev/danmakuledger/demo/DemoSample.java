package dev.danmakuledger.demo;

import dev.danmakuledger.edge.importer.BilibiliEntry;
import dev.danmakuledger.edge.importer.BilibiliImporter;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;

/**
 * The Bilibili sample the demo captures (1,239 danmaku from one video, bundled beside this class
 * with its README and licence), read with {@code edge-agent import}'s own parser so that every
 * entry becomes exactly the capture the importer would make of it, on any device and room.
 */
final class DemoSample {
  /** The class-path resource of the file. */
  static final String RESOURCE = "/dev/danmakuledger/demo/bilibili-comments.xml";

  private DemoSample() {}

  static List<BilibiliEntry> entries() throws IOException {
    try (InputStream in = DemoSample.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IOException("the demo data " + RESOURCE + " is missing from the class path");
      }
      return BilibiliImporter.readEntries(in);
    }
  }
}
