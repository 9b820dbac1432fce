package dev.danmakuledger.merkle.tiles;

import java.io.IOException;

/**
 * Where tiles and entry bundles come from: a mirrored directory, an HTTP prefix, a database. Paths
 * are C2SP tlog-tiles paths relative to the log prefix ({@code tile/0/000.p/5}, {@code
 * tile/entries/x001/234}); what a source returns is untrusted and checked by the reader.
 */
@FunctionalInterface
public interface TileSource {
  /**
   * Returns the bytes stored at {@code path}.
   *
   * @throws java.nio.file.NoSuchFileException if nothing is stored there
   * @throws IOException if the source cannot be read
   */
  byte[] read(String path) throws IOException;
}
