package dev.danmakuledger.merkle.tiles;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** C2SP tlog-tiles path encoding, including the examples of the specification. */
class TilePathTest {

  @Test
  void indexIsSplitIntoXPrefixedThreeDigitElements() {
    assertEquals("x001/x234/067", TilePath.encodeIndex(1234067));
    assertEquals("000", TilePath.encodeIndex(0));
    assertEquals("999", TilePath.encodeIndex(999));
    assertEquals("x001/000", TilePath.encodeIndex(1000));
    assertEquals("x009/x223/x372/x036/x854/x775/807", TilePath.encodeIndex(Long.MAX_VALUE));
  }

  @Test
  void fullPartialAndEntryPaths() {
    assertEquals("tile/0/000", TileId.full(0, 0).path());
    assertEquals("tile/1/x001/x234/067.p/17", new TileId(1, 1234067, 17).path());
    assertEquals("tile/entries/x001/x234/067", TileId.full(0, 1234067).entriesPath());
    assertEquals("tile/entries/273.p/112", new TileId(0, 273, 112).entriesPath());
    assertThrows(IllegalStateException.class, () -> TileId.full(1, 0).entriesPath());
    assertTrue(TileId.full(2, 5).isFull());
    assertFalse(new TileId(2, 5, 255).isFull());
  }

  @Test
  void pathsRoundTrip() {
    Random rnd = new Random(7);
    for (int i = 0; i < 2000; i++) {
      int level = rnd.nextInt(TileId.MAX_LEVEL + 1);
      long max = level == TileId.MAX_LEVEL ? 0 : Long.MAX_VALUE >>> (TileId.HEIGHT * (level + 1));
      long index = i < 1000 ? Math.min(i, max) : Math.floorMod(rnd.nextLong(), max + 1);
      int width = 1 + rnd.nextInt(TileId.FULL_WIDTH);
      TileId id = new TileId(level, index, width);
      assertEquals(id, TilePath.parseTile(id.path()));
      if (level == 0) {
        assertEquals(id, TilePath.parseEntries(id.entriesPath()));
      }
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "tile/0/0",
        "tile/0/0000",
        "tile/0/x000/001",
        "tile/00/000",
        "tile/0/000.p/0",
        "tile/0/000.p/256",
        "tile/0/000.p/007",
        "tile/8/000",
        "tile/0/000/",
        "/tile/0/000",
        "../tile/0/000",
        "tile/0/x1000/000",
        "tile/0/x001/x234/x067",
        "tile/0/x9999/000",
        "tile/0/x999/x999/x999/x999/x999/x999/x999/000",
        "tile/entries/000",
        "tile/0/000.p/5/",
        "tile/0/000.p/",
        "tile/-1/000",
        "tile/0/12a",
        "tile/0/\u0661\u0662\u0663"
      })
  void nonCanonicalOrInvalidTilePathsAreRejected(String path) {
    assertThrows(IllegalArgumentException.class, () -> TilePath.parseTile(path), path);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "tile/entries/0",
        "tile/entries/x000/001",
        "tile/entries/000.p/256",
        "tile/entries/000.p/0",
        "tile/0/000",
        "tile/entries/000.p/08"
      })
  void invalidEntryPathsAreRejected(String path) {
    assertThrows(IllegalArgumentException.class, () -> TilePath.parseEntries(path), path);
  }

  @Test
  void coordinatesAreValidated() {
    assertThrows(IllegalArgumentException.class, () -> new TileId(-1, 0, 1));
    assertThrows(IllegalArgumentException.class, () -> new TileId(8, 0, 1));
    assertThrows(IllegalArgumentException.class, () -> new TileId(0, -1, 1));
    assertThrows(IllegalArgumentException.class, () -> new TileId(0, 0, 0));
    assertThrows(IllegalArgumentException.class, () -> new TileId(0, 0, 257));
    assertThrows(IllegalArgumentException.class, () -> new TileId(7, 1, 1));
  }
}
