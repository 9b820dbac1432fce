package dev.danmakuledger.demo.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.danmakuledger.edge.importer.BilibiliImporter;
import dev.danmakuledger.edge.importer.ImportProgress;
import dev.danmakuledger.edge.store.StoredRecord;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The demo's reader of the Bilibili sample derives exactly what {@code edge-agent import} does. */
class BilibiliEntriesTest {
  @TempDir Path tmp;

  @Test
  void sameKeysAndContentAsTheImporter() throws Exception {
    List<BilibiliEntries.Entry> entries = BilibiliEntries.sample();
    assertEquals(1239, entries.size());
    Path file = tmp.resolve("sample.xml");
    try (InputStream in = BilibiliEntries.class.getResourceAsStream(BilibiliEntries.SAMPLE)) {
      Files.copy(in, file);
    }
    Map<String, String> imported = new HashMap<>();
    try (EdgeNode node = EdgeNode.init(tmp.resolve("agent"), "dev-1", Clock.systemUTC())) {
      new BilibiliImporter(node.capture()).importFile(file, "room-1", ImportProgress.none());
      for (StoredRecord r : node.records()) {
        imported.put(r.idempotencyKey(), r.contentHash());
      }
    }
    Map<String, String> derived = new HashMap<>();
    for (BilibiliEntries.Entry e : entries) {
      DanmakuRecord d = e.request("dev-1", "room-1").draft("dev-1");
      derived.put(d.key().toString(), d.contentHash());
    }
    assertEquals(imported, derived);
  }

  @Test
  void documentTypeDeclarationsAreRefused() {
    String xxe =
        "<?xml version=\"1.0\"?><!DOCTYPE i [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>"
            + "<i><d p=\"1,1,25,0,1484219280,0,ab,1\">&x;</d></i>";
    assertThrows(IOException.class, () -> read(xxe));
  }

  @Test
  void malformedAttributesAreRefused() {
    assertThrows(IOException.class, () -> read("<i><d p=\"1,1,25\">short</d></i>"));
    assertThrows(IOException.class, () -> read("<i><d p=\"x,1,25,0,1484219280,0,ab,1\">t</d></i>"));
  }

  private static List<BilibiliEntries.Entry> read(String xml) throws IOException {
    return BilibiliEntries.read(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
  }
}
