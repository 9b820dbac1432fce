package dev.danmakuledger.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.danmakuledger.demo.harness.EdgeNode;
import dev.danmakuledger.edge.importer.BilibiliEntry;
import dev.danmakuledger.edge.importer.BilibiliImporter;
import dev.danmakuledger.edge.importer.ImportProgress;
import dev.danmakuledger.edge.store.StoredRecord;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo's split of the sample captures what {@code edge-agent import} of the whole file does:
 * same keys, same content, for every one of the 1,239 entries.
 */
class DemoSampleTest {
  @TempDir Path tmp;

  @Test
  void sameKeysAndContentAsImportingTheFile() throws Exception {
    List<BilibiliEntry> entries = DemoSample.entries();
    assertEquals(1239, entries.size());
    Path file = tmp.resolve("sample.xml");
    try (InputStream in = DemoSample.class.getResourceAsStream(DemoSample.RESOURCE)) {
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
    for (BilibiliEntry e : entries) {
      DanmakuRecord d = e.request("dev-1", "room-1").draft("dev-1");
      derived.put(d.key().toString(), d.contentHash());
    }
    assertEquals(1239, imported.size());
    assertEquals(imported, derived);
  }
}
