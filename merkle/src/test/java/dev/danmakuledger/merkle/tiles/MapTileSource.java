package dev.danmakuledger.merkle.tiles;

import java.nio.file.NoSuchFileException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** An in-memory tile store, as a log server would keep it: every tile and bundle ever written. */
final class MapTileSource implements TileSource {
  final Map<String, byte[]> files = new HashMap<>();

  @Override
  public byte[] read(String path) throws NoSuchFileException {
    byte[] b = files.get(path);
    if (b == null) {
      throw new NoSuchFileException(path);
    }
    return b.clone();
  }

  void putTiles(List<Tile> tiles) {
    for (Tile t : tiles) {
      files.put(t.id().path(), t.data());
    }
  }

  void putBundle(Optional<BundleWriter.Bundle> b) {
    b.ifPresent(x -> files.put(x.id().entriesPath(), x.data()));
  }
}
