package dev.danmakuledger.merkle.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.Checkpoints;
import dev.danmakuledger.merkle.checkpoint.CosignatureSigner;
import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import dev.danmakuledger.merkle.hash.Rfc6962;
import dev.danmakuledger.merkle.tiles.Tile;
import dev.danmakuledger.merkle.tiles.TileWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tlog verify-room} on a mirrored room log of 600 entries (two full bundles and a partial
 * one of 88), checkpointed at 300 and 600: the untouched mirror passes, and every tampering is
 * caught with exit status 1 and says what is wrong.
 */
class TlogVerifyRoomTest {
  private static final NoteSigner SIGNER =
      NoteSigner.generate("danmaku-ledger/room/live.main", new SecureRandom());
  private static final String VKEY = SIGNER.verifierKey();

  @TempDir Path dir;
  private RoomMirror mirror;
  private Path previous;

  @BeforeEach
  void publish() throws IOException {
    mirror = new RoomMirror(dir.resolve("mirror"), SIGNER);
    Files.createDirectories(mirror.dir);
    previous = Files.writeString(dir.resolve("cp300.note"), mirror.growTo(300));
    mirror.growTo(600);
  }

  @Test
  void untouchedMirrorVerifies() {
    TlogTest.Result r = verify("--previous", previous.toString());
    assertEquals(0, r.status(), r.err());
    String[] lines = r.out().split("\n");
    assertTrue(lines[0].startsWith(RoomMirror.ORIGIN + " 600 "), r.out());
    assertEquals(
        "600 entries (515 messages, 85 tombstones), 4 tiles match the entries,"
            + " consistent with size 300",
        lines[1]);
  }

  @Test
  void largerMirrorWithAFullLevel1TileVerifies() throws IOException {
    mirror.growTo(66_000);
    TlogTest.Result r = verify("--previous", previous.toString());
    assertEquals(0, r.status(), r.err());
    assertTrue(r.out().contains("66000 entries"), r.out());
  }

  @Test
  void editedEntry() throws IOException {
    List<byte[]> b = mirror.bundle("tile/entries/001", 256);
    b.set(
        10,
        new String(b.get(10), StandardCharsets.US_ASCII).replace(" M 2536", " M 2537").getBytes());
    mirror.putBundle("tile/entries/001", b);
    assertInvalid("tile/0/001 differs from the tile recomputed from the entries");
  }

  @Test
  void editedEntryWithAllTilesRecomputed() throws IOException {
    List<byte[]> b = mirror.bundle("tile/entries/001", 256);
    b.set(
        10,
        new String(b.get(10), StandardCharsets.US_ASCII).replace(" M 2536", " M 2537").getBytes());
    mirror.putBundle("tile/entries/001", b);
    TileWriter w = TileWriter.empty();
    for (long seq = 1; seq <= 600; seq++) {
      byte[] e = seq == 256 + 10 + 1 ? b.get(10) : RoomMirror.entry(seq);
      for (Tile t : w.append(Rfc6962.leafHash(e))) {
        mirror.put(t.id().path(), t.data());
      }
    }
    for (Tile t : w.partialTiles()) {
      mirror.put(t.id().path(), t.data());
    }
    assertInvalid("root from the tiles");
  }

  @Test
  void reorderedEntries() throws IOException {
    List<byte[]> b = mirror.bundle("tile/entries/001", 256);
    Collections.swap(b, 44, 45);
    mirror.putBundle("tile/entries/001", b);
    assertInvalid("entry 300 (seq 301): got seq \"302\", want 301");
  }

  @Test
  void droppedEntry() throws IOException {
    List<byte[]> b = mirror.bundle("tile/entries/001", 256);
    b.remove(100);
    mirror.putBundle("tile/entries/001", b);
    assertInvalid("got 255 entries, want 256");
  }

  @Test
  void duplicatedEntry() throws IOException {
    List<byte[]> b = mirror.bundle("tile/entries/001", 256);
    b.set(101, b.get(100));
    mirror.putBundle("tile/entries/001", b);
    assertInvalid("entry 357 (seq 358): got seq \"357\", want 358");
  }

  @Test
  void extraEntryInPartialBundle() throws IOException {
    List<byte[]> b = mirror.bundle("tile/entries/002.p/88", 88);
    b.add(RoomMirror.entry(601));
    mirror.putBundle("tile/entries/002.p/88", b);
    assertInvalid("bytes after the 88 entries");
  }

  @Test
  void flippedBitInTileNotNeededForTheRoot() throws IOException {
    flip("tile/0/000", 100);
    assertInvalid("tile/0/000 differs from the tile recomputed from the entries");
  }

  @Test
  void flippedBitInTileOnTheRootPath() throws IOException {
    flip("tile/1/000.p/2", 3);
    assertInvalid("root from the tiles");
  }

  @Test
  void truncatedTile() throws IOException {
    byte[] t = mirror.read("tile/0/002.p/88");
    mirror.put("tile/0/002.p/88", java.util.Arrays.copyOf(t, t.length - 32));
    assertInvalid("tile/0/002.p/88: got 2784 bytes, want 2816");
  }

  @Test
  void missingBundle() throws IOException {
    Files.delete(mirror.dir.resolve("tile/entries/000"));
    assertInvalid("entry bundle tile/entries/000 is missing");
  }

  @Test
  void forgedCheckpointSize() throws IOException {
    Path cp = mirror.dir.resolve("checkpoint");
    Files.writeString(cp, Files.readString(cp).replace("\n600\n", "\n599\n"));
    assertInvalid("signature by danmaku-ledger/room/live.main does not verify");
  }

  @Test
  void checkpointByAnotherKey() {
    String other =
        NoteSigner.generate("danmaku-ledger/room/live.main", new SecureRandom()).verifierKey();
    TlogTest.Result r = TlogTest.run("verify-room", "--vkey", other, mirror.dir.toString());
    assertEquals(1, r.status(), r.err());
    assertTrue(r.err().contains("has key hash"), r.err());
  }

  @Test
  void forkedPreviousCheckpointIsInconsistent() throws IOException {
    byte[] otherRoot = Rfc6962.leafHash("fork".getBytes());
    Path fork =
        Files.writeString(
            dir.resolve("fork.note"),
            Checkpoints.sign(new Checkpoint(RoomMirror.ORIGIN, 300, otherRoot), SIGNER));
    TlogTest.Result r = verify("--previous", fork.toString());
    assertEquals(1, r.status(), r.err());
    assertTrue(r.err().contains("root1 mismatch"), r.err());
  }

  @Test
  void previousCheckpointLargerThanTheMirrorIsARollback() throws IOException {
    Path later = Files.writeString(dir.resolve("later.note"), mirror.growTo(700));
    Files.writeString(mirror.dir.resolve("checkpoint"), Files.readString(previous));
    TlogTest.Result r = verify("--previous", later.toString());
    assertEquals(1, r.status(), r.err());
    assertTrue(r.err().contains("larger than the mirror's 300"), r.err());
  }

  @Test
  void checkpointOfADeviceLogIsNotARoomLog() throws IOException {
    NoteSigner device = NoteSigner.generate("dev", new SecureRandom());
    Files.writeString(
        mirror.dir.resolve("checkpoint"),
        Checkpoints.sign(
            new Checkpoint("danmaku-ledger/device/kiosk-01", 0, Rfc6962.emptyRoot()), device));
    TlogTest.Result r =
        TlogTest.run("verify-room", "--vkey", device.verifierKey(), mirror.dir.toString());
    assertEquals(1, r.status(), r.err());
    assertTrue(r.err().contains("want danmaku-ledger/room/<room>"), r.err());
  }

  @Test
  void wrongExpectedOrigin() {
    TlogTest.Result r = verify("--origin", "danmaku-ledger/room/other");
    assertEquals(1, r.status(), r.err());
  }

  @Test
  void usageErrors() throws IOException {
    assertEquals(
        2, TlogTest.run("verify-room", "--vkey", VKEY, dir.resolve("nope").toString()).status());
    Files.delete(mirror.dir.resolve("checkpoint"));
    TlogTest.Result r = verify();
    assertEquals(2, r.status());
    assertTrue(r.err().contains("checkpoint: no such file"), r.err());
    assertEquals(2, TlogTest.run("verify-room", "--vkey", "junk", mirror.dir.toString()).status());
  }

  @Test
  void requiredCosignatureIsChecked() throws IOException {
    CosignatureSigner witness =
        CosignatureSigner.generate("witness.example/w1", new SecureRandom());
    Path cp = mirror.dir.resolve("checkpoint");
    TlogTest.Result missing = verify("--cosigner", witness.verifierKey());
    assertEquals(1, missing.status(), missing.err());
    assertTrue(missing.err().contains("no signature by witness.example/w1"), missing.err());
    Files.writeString(cp, witness.cosign(Files.readString(cp), 1764547200L));
    TlogTest.Result ok = verify("--cosigner", witness.verifierKey());
    assertEquals(0, ok.status(), ok.err());
    assertTrue(
        ok.out().contains(", cosigned by witness.example/w1 at 2025-12-01T00:00:00Z"), ok.out());
  }

  private TlogTest.Result verify(String... extra) {
    List<String> args = new ArrayList<>(List.of("verify-room", "--vkey", VKEY));
    args.addAll(List.of(extra));
    args.add(mirror.dir.toString());
    return TlogTest.run(args.toArray(String[]::new));
  }

  private void assertInvalid(String reason) {
    TlogTest.Result r = verify("--previous", previous.toString());
    assertEquals(1, r.status(), r.err());
    assertEquals("", r.out());
    assertTrue(r.err().contains(reason), r.err());
  }

  private void flip(String path, int bit) throws IOException {
    byte[] t = mirror.read(path);
    t[bit / 8] ^= (byte) (1 << (bit % 8));
    mirror.put(path, t);
  }
}
