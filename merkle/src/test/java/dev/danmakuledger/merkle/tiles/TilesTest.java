package dev.danmakuledger.merkle.tiles;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Which tiles make a tree, checked against the examples of C2SP tlog-tiles. */
class TilesTest {

  @Test
  void treeOf70000IsTheSpecExample() {
    List<TileId> tiles = Tiles.forSize(70_000);
    assertEquals(273, tiles.stream().filter(t -> t.level() == 0 && t.isFull()).count());
    assertEquals(1, tiles.stream().filter(t -> t.level() == 1 && t.isFull()).count());
    assertEquals(
        List.of(new TileId(0, 273, 112), new TileId(1, 1, 17), new TileId(2, 0, 1)),
        Tiles.partialTiles(70_000));
    assertEquals(273 + 1 + 1 + 1 + 1, tiles.size());
  }

  @Test
  void treeOf256IsOneFullTileAndAPartialLevel1Tile() {
    assertEquals(List.of(TileId.full(0, 0), new TileId(1, 0, 1)), Tiles.forSize(256));
    assertEquals(List.of(), Tiles.forSize(0));
    assertEquals(List.of(new TileId(0, 0, 1)), Tiles.forSize(1));
  }

  @Test
  void largestTreesStayWithinLevel7() {
    List<TileId> partial = Tiles.partialTiles(Long.MAX_VALUE);
    assertEquals(8, partial.size());
    assertEquals(new TileId(7, 0, 127), partial.get(7));
    assertEquals(new TileId(0, Long.MAX_VALUE >>> 8, 255), partial.get(0));
  }
}
