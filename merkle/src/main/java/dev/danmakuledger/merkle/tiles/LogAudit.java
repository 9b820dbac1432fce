package dev.danmakuledger.merkle.tiles;

import dev.danmakuledger.merkle.VerificationException;
import dev.danmakuledger.merkle.hash.Rfc6962;
import dev.danmakuledger.merkle.proof.RootMismatchException;
import java.io.IOException;
import java.security.MessageDigest;
import java.util.List;

/**
 * Audits a mirrored C2SP tlog-tiles log of {@code size} leaves against a verified checkpoint root:
 * the root recomputed from the tiles must match; every entry is read from its bundle, checked by
 * the application's {@link EntryCheck}, and hashed; the tiles rebuilt from those leaf hashes must
 * equal the mirror's tiles byte for byte, and their root the checkpoint root. So a mirror passes
 * only if its entries, its tiles and the checkpoint all describe the same tree. It streams one
 * bundle at a time and keeps O(log size) state.
 */
public final class LogAudit {
  private LogAudit() {}

  /** What an audit saw. */
  public record Result(long entries, long tilesCompared) {}

  /**
   * Runs the audit.
   *
   * @throws TileException if a tile or bundle is missing, malformed or differs from the recomputed
   *     one, or an entry fails {@code check}
   * @throws RootMismatchException if the tiles or the entries lead to another root
   * @throws IOException if the source fails
   */
  public static Result audit(TileSource source, long size, byte[] checkpointRoot, EntryCheck check)
      throws IOException, VerificationException {
    Rfc6962.checkHash("checkpointRoot", checkpointRoot);
    TileReader reader = new TileReader(source, size);
    byte[] fromTiles = reader.root();
    if (!MessageDigest.isEqual(fromTiles, checkpointRoot)) {
      throw new RootMismatchException("root from the tiles", checkpointRoot, fromTiles);
    }
    TileWriter rebuilt = TileWriter.empty();
    long compared = 0;
    long bundles = Tiles.fullTiles(size, 0) + (size % TileId.FULL_WIDTH == 0 ? 0 : 1);
    for (long b = 0; b < bundles; b++) {
      List<byte[]> entries = reader.readBundle(Tiles.tileAt(size, 0, b));
      for (int i = 0; i < entries.size(); i++) {
        long leaf = b * TileId.FULL_WIDTH + i;
        check.check(leaf, entries.get(i));
        for (Tile full : rebuilt.append(Rfc6962.leafHash(entries.get(i)))) {
          compare(reader, full);
          compared++;
        }
      }
    }
    for (Tile partial : rebuilt.partialTiles()) {
      compare(reader, partial);
      compared++;
    }
    byte[] fromEntries = rebuilt.root();
    if (!MessageDigest.isEqual(fromEntries, checkpointRoot)) {
      throw new RootMismatchException("root from the entries", checkpointRoot, fromEntries);
    }
    return new Result(size, compared);
  }

  private static void compare(TileReader reader, Tile want) throws IOException, TileException {
    Tile got = reader.tile(want.id().level(), want.id().index());
    if (!got.equals(want)) {
      throw new TileException(
          want.id().path() + " differs from the tile recomputed from the entries");
    }
  }
}
