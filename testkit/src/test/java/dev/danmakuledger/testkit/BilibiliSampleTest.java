package dev.danmakuledger.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.danmakuledger.edge.importer.BilibiliEntry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BilibiliSampleTest {
  @TempDir Path tmp;

  @Test
  void everyEntryOfTheSampleIsACaptureWithItsOwnKey() {
    List<BilibiliEntry> entries = BilibiliSample.entries();
    assertEquals(BilibiliSample.SIZE, entries.size());
    Set<String> keys = new HashSet<>();
    for (BilibiliEntry e : entries) {
      keys.add(e.request("dev-1", "room-1").key().toString());
    }
    assertEquals(BilibiliSample.SIZE, keys.size());
  }

  @Test
  void theCopyIsTheSameFile() throws Exception {
    Path file = BilibiliSample.copyTo(tmp.resolve("in"));
    byte[] bytes;
    try (var in = BilibiliSample.open()) {
      bytes = in.readAllBytes();
    }
    assertEquals(bytes.length, Files.size(file));
  }
}
