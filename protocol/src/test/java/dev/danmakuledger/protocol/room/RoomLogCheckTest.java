package dev.danmakuledger.protocol.room;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.merkle.hash.Rfc6962;
import dev.danmakuledger.merkle.tiles.BundleWriter;
import dev.danmakuledger.merkle.tiles.LogAudit;
import dev.danmakuledger.merkle.tiles.Tile;
import dev.danmakuledger.merkle.tiles.TileException;
import dev.danmakuledger.merkle.tiles.TileSource;
import dev.danmakuledger.merkle.tiles.TileWriter;
import dev.danmakuledger.protocol.key.IdempotencyKey;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Room log entries written to tiles and audited with the strict room entry check. */
class RoomLogCheckTest {

  static RoomLogEntry entry(long seq) {
    if (seq % 5 == 0) {
      return TombstoneEntry.of(seq, TombstoneReason.DUPLICATE_CAUGHT_BY_SQL);
    }
    String hash = HexFormat.of().formatHex(Rfc6962.leafHash(Long.toString(seq).getBytes()));
    IdempotencyKey key =
        IdempotencyKey.parse("kiosk-01:alice:1732953600000:" + String.format("%016x", seq));
    return new MessageEntry(seq, 1000 + seq, "kiosk-01", seq - 1, hash, key);
  }

  /** Publishes {@code entries} as tiles and bundles; returns the files and the root. */
  static Map<String, byte[]> publish(List<byte[]> entries, byte[][] root) {
    Map<String, byte[]> files = new HashMap<>();
    TileWriter tiles = TileWriter.empty();
    BundleWriter bundles = BundleWriter.empty();
    for (byte[] e : entries) {
      for (Tile t : tiles.append(Rfc6962.leafHash(e))) {
        files.put(t.id().path(), t.data());
      }
      bundles.append(e).ifPresent(b -> files.put(b.id().entriesPath(), b.data()));
    }
    for (Tile t : tiles.partialTiles()) {
      files.put(t.id().path(), t.data());
    }
    bundles.partialBundle().ifPresent(b -> files.put(b.id().entriesPath(), b.data()));
    root[0] = tiles.root();
    return files;
  }

  static TileSource source(Map<String, byte[]> files) {
    return path -> {
      byte[] b = files.get(path);
      if (b == null) {
        throw new NoSuchFileException(path);
      }
      return b.clone();
    };
  }

  @Test
  void wellFormedRoomLogPasses() throws Exception {
    List<byte[]> entries = new ArrayList<>();
    for (long seq = 1; seq <= 700; seq++) {
      entries.add(entry(seq).encode());
    }
    byte[][] root = new byte[1][];
    Map<String, byte[]> files = publish(entries, root);
    RoomLogCheck check = new RoomLogCheck();
    assertEquals(700, LogAudit.audit(source(files), 700, root[0], check).entries());
    assertEquals(560, check.messages());
    assertEquals(140, check.tombstones());
  }

  @Test
  void nonCanonicalEntryIsCaughtEvenWithMatchingTiles() {
    List<byte[]> entries = new ArrayList<>();
    for (long seq = 1; seq <= 10; seq++) {
      entries.add(entry(seq).encode());
    }
    String upper = new String(entries.get(2), StandardCharsets.US_ASCII);
    String hash = ((MessageEntry) entry(3)).deviceLeafHashHex();
    entries.set(2, upper.replace(hash, hash.toUpperCase()).getBytes(StandardCharsets.US_ASCII));
    byte[][] root = new byte[1][];
    Map<String, byte[]> files = publish(entries, root);
    TileException e =
        assertThrows(
            TileException.class,
            () -> LogAudit.audit(source(files), 10, root[0], new RoomLogCheck()));
    assertTrue(e.getMessage().startsWith("entry 2: deviceLeafHashHex"), e.getMessage());
  }

  @Test
  void gapInTheNumberingIsCaught() {
    List<byte[]> entries = new ArrayList<>();
    for (long seq = 1; seq <= 10; seq++) {
      entries.add(entry(seq == 7 ? 8 : seq).encode());
    }
    byte[][] root = new byte[1][];
    Map<String, byte[]> files = publish(entries, root);
    TileException e =
        assertThrows(
            TileException.class,
            () -> LogAudit.audit(source(files), 10, root[0], new RoomLogCheck()));
    assertTrue(e.getMessage().contains("entry 6: got seq 8, want 7"), e.getMessage());
  }
}
