package dev.danmakuledger.merkle.cli;

import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.Checkpoints;
import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import dev.danmakuledger.merkle.hash.Rfc6962;
import dev.danmakuledger.merkle.tiles.BundleWriter;
import dev.danmakuledger.merkle.tiles.EntryBundle;
import dev.danmakuledger.merkle.tiles.Tile;
import dev.danmakuledger.merkle.tiles.TileWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * Writes a room log mirror to a directory the way a log server publishes it (docs/room-log.md):
 * entry bundles and tiles under {@code tile/}, the partial ones for each checkpointed size, and the
 * signed {@code checkpoint}.
 */
final class RoomMirror {
  static final String ORIGIN = "danmaku-ledger/room/live.main";

  final Path dir;
  final NoteSigner signer;
  private final TileWriter tiles = TileWriter.empty();
  private final BundleWriter bundles = BundleWriter.empty();

  RoomMirror(Path dir, NoteSigner signer) {
    this.dir = dir;
    this.signer = signer;
  }

  /** Entry for room seq {@code seq}: every 7th number is a tombstone, the rest messages. */
  static byte[] entry(long seq) {
    String text =
        seq % 7 == 0
            ? "v1 " + seq + " T lost-by-redis"
            : "v1 "
                + seq
                + " M "
                + (253671505920020497L + seq)
                + " kiosk-01 "
                + (seq - 1)
                + " "
                + HexFormat.of().formatHex(Rfc6962.leafHash(Long.toString(seq).getBytes()))
                + " kiosk-01:alice:1732953600000:"
                + String.format("%016x", seq);
    return text.getBytes(StandardCharsets.US_ASCII);
  }

  /** Appends entries up to {@code size}, writes the files and returns the checkpoint note. */
  String growTo(long size) throws IOException {
    while (tiles.size() < size) {
      byte[] e = entry(tiles.size() + 1);
      write(tiles.append(Rfc6962.leafHash(e)));
      writeBundle(bundles.append(e));
    }
    write(tiles.partialTiles());
    writeBundle(bundles.partialBundle());
    String note = Checkpoints.sign(new Checkpoint(ORIGIN, size, tiles.root()), signer);
    Files.writeString(dir.resolve("checkpoint"), note, StandardCharsets.UTF_8);
    return note;
  }

  byte[] read(String path) throws IOException {
    return Files.readAllBytes(dir.resolve(path));
  }

  void put(String path, byte[] bytes) throws IOException {
    Files.createDirectories(dir.resolve(path).getParent());
    Files.write(dir.resolve(path), bytes);
  }

  List<byte[]> bundle(String path, int count) throws IOException {
    return new ArrayList<>(EntryBundle.decode(read(path), count));
  }

  void putBundle(String path, List<byte[]> entries) throws IOException {
    put(path, EntryBundle.encode(entries));
  }

  private void write(List<Tile> written) throws IOException {
    for (Tile t : written) {
      put(t.id().path(), t.data());
    }
  }

  private void writeBundle(Optional<BundleWriter.Bundle> b) throws IOException {
    if (b.isPresent()) {
      put(b.get().id().entriesPath(), b.get().data());
    }
  }
}
