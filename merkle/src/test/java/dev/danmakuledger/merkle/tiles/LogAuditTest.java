package dev.danmakuledger.merkle.tiles;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.merkle.ReferenceTree;
import dev.danmakuledger.merkle.proof.RootMismatchException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The mirror audit: entries, tiles and checkpoint root must all describe the same tree. */
class LogAuditTest {
  private static final int SIZE = 1000;
  private static final List<byte[]> ENTRIES = TileWriterReaderTest.entries(SIZE);

  private static MapTileSource store() {
    MapTileSource s = new MapTileSource();
    TileWriter w = TileWriter.empty();
    BundleWriter b = BundleWriter.empty();
    for (byte[] e : ENTRIES) {
      s.putTiles(w.append(dev.danmakuledger.merkle.hash.Rfc6962.leafHash(e)));
      s.putBundle(b.append(e));
    }
    s.putTiles(w.partialTiles());
    s.putBundle(b.partialBundle());
    return s;
  }

  private static byte[] root() {
    return ReferenceTree.root(TileWriterReaderTest.leafHashes(ENTRIES));
  }

  @Test
  void goodMirrorPassesAndTheCheckSeesEveryLeafInOrder() throws Exception {
    List<Long> seen = new ArrayList<>();
    LogAudit.Result r = LogAudit.audit(store(), SIZE, root(), (i, e) -> seen.add(i));
    assertEquals(SIZE, r.entries());
    // 1000 = 3 * 256 + 232: three full level-0 tiles, 003.p/232, and level-1 000.p/3.
    assertEquals(5, r.tilesCompared());
    assertEquals(Tiles.forSize(SIZE).size(), r.tilesCompared());
    assertEquals(SIZE, seen.size());
    for (int i = 0; i < SIZE; i++) {
      assertEquals(i, seen.get(i));
    }
  }

  @Test
  void emptyLogPasses() throws Exception {
    LogAudit.Result r =
        LogAudit.audit(new MapTileSource(), 0, ReferenceTree.root(List.of()), EntryCheck.NONE);
    assertEquals(0, r.tilesCompared());
  }

  @Test
  void wrongCheckpointRootFails() {
    byte[] other = ReferenceTree.root(ReferenceTree.leaves(3));
    assertThrows(
        RootMismatchException.class, () -> LogAudit.audit(store(), SIZE, other, EntryCheck.NONE));
  }

  @Test
  void failingEntryCheckFails() {
    TileException e =
        assertThrows(
            TileException.class,
            () ->
                LogAudit.audit(
                    store(),
                    SIZE,
                    root(),
                    (i, entry) -> {
                      if (i == 777) {
                        throw new TileException("entry 777 is not allowed");
                      }
                    }));
    assertTrue(e.getMessage().contains("777"));
  }

  @Test
  void flippedBitInCoveredTileFails() {
    MapTileSource s = store();
    s.files.get("tile/0/001")[5] ^= 1;
    TileException e =
        assertThrows(TileException.class, () -> LogAudit.audit(s, SIZE, root(), EntryCheck.NONE));
    assertTrue(e.getMessage().contains("tile/0/001 differs"), e.getMessage());
  }
}
