package dev.danmakuledger.ui.testing;

import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.Checkpoints;
import dev.danmakuledger.merkle.checkpoint.CosignatureSigner;
import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import dev.danmakuledger.merkle.hash.Rfc6962;
import dev.danmakuledger.merkle.proof.Proofs;
import dev.danmakuledger.merkle.tiles.BundleWriter;
import dev.danmakuledger.merkle.tiles.Tile;
import dev.danmakuledger.merkle.tiles.TileWriter;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongFunction;
import okhttp3.mockwebserver.MockResponse;

/**
 * The server's room logs for console tests (docs/room-log.md): per room, the checkpoint, tiles and
 * entry bundles a log server publishes under {@code /v1/rooms/{room}/log/}, written with the merkle
 * tile writers, and the keys of {@code /v1/server/keys}. A test can grow a log, replace it with
 * another tree (a split view), or flip a bit in a tile.
 */
public final class RoomLogFixture {
  public final NoteSigner logKey =
      NoteSigner.generate("danmaku-ledger/server-log/fixture", new SecureRandom());
  public final CosignatureSigner cosigner =
      CosignatureSigner.generate("danmaku-ledger/server/fixture", new SecureRandom());
  private final Clock clock;
  private final Map<String, Map<String, byte[]>> files = new ConcurrentHashMap<>();
  private final Map<String, TileWriter> tiles = new ConcurrentHashMap<>();
  private final Map<String, BundleWriter> bundles = new ConcurrentHashMap<>();
  private final Map<String, List<byte[]>> entries = new ConcurrentHashMap<>();
  private final Map<String, Integer> checkpointReads = new ConcurrentHashMap<>();
  private final Map<String, Boolean> forkOnSecondRead = new ConcurrentHashMap<>();

  public RoomLogFixture(Clock clock) {
    this.clock = clock;
  }

  /** A tombstone entry for {@code seq}, the default content of test logs. */
  public static byte[] tombstone(long seq) {
    return ("v1 " + seq + " T lost-by-redis").getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * Appends entries to {@code room}'s log up to {@code size} and publishes a cosigned checkpoint.
   */
  public synchronized void grow(String room, long size, LongFunction<byte[]> entryOfSeq) {
    Map<String, byte[]> f = files.computeIfAbsent(room, r -> new ConcurrentHashMap<>());
    TileWriter t = tiles.computeIfAbsent(room, r -> TileWriter.empty());
    BundleWriter b = bundles.computeIfAbsent(room, r -> BundleWriter.empty());
    List<byte[]> all = entries.computeIfAbsent(room, r -> new ArrayList<>());
    while (t.size() < size) {
      byte[] e = entryOfSeq.apply(t.size() + 1);
      all.add(e);
      for (Tile full : t.append(Rfc6962.leafHash(e))) {
        f.put(full.id().path(), full.data());
      }
      b.append(e).ifPresent(x -> f.put(x.id().entriesPath(), x.data()));
    }
    for (Tile p : t.partialTiles()) {
      f.put(p.id().path(), p.data());
    }
    b.partialBundle().ifPresent(x -> f.put(x.id().entriesPath(), x.data()));
    String note =
        Checkpoints.sign(new Checkpoint("danmaku-ledger/room/" + room, size, t.root()), logKey);
    f.put("checkpoint", cosigner.cosign(note, clock).getBytes(StandardCharsets.UTF_8));
  }

  public void grow(String room, long size) {
    grow(room, size, RoomLogFixture::tombstone);
  }

  /** The bytes of entry {@code seq} (leaf {@code seq - 1}) of {@code room}'s log. */
  public synchronized byte[] entry(String room, long seq) {
    return entries.get(room).get((int) (seq - 1));
  }

  /** The published checkpoint note of {@code room}'s log. */
  public synchronized String checkpoint(String room) {
    return new String(files.get(room).get("checkpoint"), StandardCharsets.UTF_8);
  }

  /** The size of {@code room}'s log. */
  public synchronized long size(String room) {
    return entries.get(room).size();
  }

  /**
   * The RFC 9162 inclusion proof of leaf {@code index} in {@code room}'s log at its current size,
   * computed from the entries (the recursive definition, small logs only).
   */
  public synchronized List<byte[]> inclusion(String room, long index) {
    List<byte[]> leaves = new ArrayList<>();
    for (byte[] e : entries.get(room)) {
      leaves.add(Rfc6962.leafHash(e));
    }
    return Proofs.inclusion(
        index, leaves.size(), id -> subtree(leaves, (int) id.begin(), (int) id.end()));
  }

  private static byte[] subtree(List<byte[]> leaves, int begin, int end) {
    if (end - begin == 1) {
      return leaves.get(begin);
    }
    int mid = begin + (end - begin) / 2;
    return Rfc6962.nodeHash(subtree(leaves, begin, mid), subtree(leaves, mid, end));
  }

  /** Replaces {@code room}'s log with another tree of {@code size} entries: a split view. */
  public synchronized void fork(String room, long size) {
    files.remove(room);
    tiles.remove(room);
    bundles.remove(room);
    entries.remove(room);
    grow(
        room,
        size,
        seq -> ("v1 " + seq + " T duplicate-caught-by-sql").getBytes(StandardCharsets.US_ASCII));
  }

  /**
   * Makes {@code room}'s log a split view as seen by one console: the first checkpoint read gets
   * the log as it is, every later one a different tree 50 entries larger.
   */
  public void forkAfterFirstRead(String room) {
    forkOnSecondRead.put(room, true);
  }

  /** Serves a checkpoint note signed by another key for {@code room}. */
  public void resignWith(String room, NoteSigner other) {
    String note = new String(files.get(room).get("checkpoint"), StandardCharsets.UTF_8);
    Checkpoint cp = Checkpoint.parse(note.substring(0, note.indexOf("\n\n") + 1));
    files.get(room).put("checkpoint", Checkpoints.sign(cp, other).getBytes(StandardCharsets.UTF_8));
  }

  /** Flips one bit of the file at {@code path} of {@code room}'s log. */
  public void flipBit(String room, String path) {
    byte[] b = files.get(room).get(path).clone();
    b[b.length / 2] ^= 1;
    files.get(room).put(path, b);
  }

  public String keysJson() {
    return "{\"logVerifierKey\":\""
        + logKey.verifierKey()
        + "\",\"cosignerVerifierKey\":\""
        + cosigner.verifierKey()
        + "\"}";
  }

  /**
   * Answers {@code GET /v1/server/keys} and {@code GET /v1/rooms/{room}/log/...}, or returns null
   * for any other path.
   */
  public MockResponse serve(List<String> p) {
    if (p.equals(List.of("v1", "server", "keys"))) {
      return new MockResponse().setHeader("Content-Type", "application/json").setBody(keysJson());
    }
    if (p.size() < 5
        || !p.get(0).equals("v1")
        || !p.get(1).equals("rooms")
        || !p.get(3).equals("log")) {
      return null;
    }
    if (p.size() == 5 && p.get(4).equals("checkpoint")) {
      int reads = checkpointReads.merge(p.get(2), 1, Integer::sum);
      if (reads == 2 && forkOnSecondRead.containsKey(p.get(2))) {
        fork(p.get(2), tiles.get(p.get(2)).size() + 50);
      }
    }
    Map<String, byte[]> f = files.get(p.get(2));
    byte[] body = f == null ? null : f.get(String.join("/", p.subList(4, p.size())));
    if (body == null) {
      return new MockResponse().setResponseCode(404);
    }
    return new MockResponse()
        .setHeader(
            "Content-Type",
            p.get(4).equals("checkpoint")
                ? "text/plain; charset=utf-8"
                : "application/octet-stream")
        .setBody(new okio.Buffer().write(body));
  }
}
