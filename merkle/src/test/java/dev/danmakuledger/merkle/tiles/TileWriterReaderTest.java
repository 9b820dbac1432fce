package dev.danmakuledger.merkle.tiles;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.merkle.ReferenceTree;
import dev.danmakuledger.merkle.hash.Rfc6962;
import dev.danmakuledger.merkle.proof.ConsistencyProof;
import dev.danmakuledger.merkle.proof.InclusionProof;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Writes the tiles and bundles of growing logs and reads roots, proofs and entries back, checking
 * everything against the recursive RFC 9162 reference ({@link ReferenceTree}).
 */
class TileWriterReaderTest {

  @Test
  void everySizeUpTo1000MatchesTheReference() throws Exception {
    int max = 1000;
    List<byte[]> entries = entries(max);
    List<byte[]> leaves = leafHashes(entries);
    MapTileSource store = new MapTileSource();
    TileWriter tiles = TileWriter.empty();
    BundleWriter bundles = BundleWriter.empty();
    for (int size = 0; size <= max; size++) {
      if (size > 0) {
        store.putTiles(tiles.append(leaves.get(size - 1)));
        store.putBundle(bundles.append(entries.get(size - 1)));
      }
      // Checkpoint every size: store its partial tiles and bundle.
      store.putTiles(tiles.partialTiles());
      store.putBundle(bundles.partialBundle());
      List<byte[]> prefix = leaves.subList(0, size);
      byte[] want = ReferenceTree.root(prefix);
      assertArrayEquals(want, tiles.root(), "writer root at size " + size);
      TileReader reader = new TileReader(store, size);
      assertArrayEquals(want, reader.root(), "reader root at size " + size);
      for (long index : sample(size, size / 2, size - 1, size / 3)) {
        assertHashesEqual(
            ReferenceTree.path((int) index, prefix), reader.inclusionProof(index), "path");
        assertArrayEquals(leaves.get((int) index), reader.leafHash(index));
      }
      for (long old : sample(size + 1, 0, 1, size / 3, size - 1, size)) {
        assertHashesEqual(
            ReferenceTree.proof((int) old, prefix), reader.consistencyProof(old), "proof");
      }
    }
    // Every checkpointed size stays readable after the log grew past it.
    for (int size = 0; size <= max; size++) {
      assertArrayEquals(
          ReferenceTree.root(leaves.subList(0, size)), new TileReader(store, size).root());
    }
    TileReader last = new TileReader(store, max);
    List<byte[]> readBack = new ArrayList<>();
    for (long b = 0; b <= max / TileId.FULL_WIDTH; b++) {
      readBack.addAll(last.entries(b));
    }
    assertHashesEqual(entries, readBack, "entries");
  }

  @Test
  void randomLargerSizesMatchTheReference() throws Exception {
    Random rnd = new Random(20261201);
    List<Integer> sizes = new ArrayList<>(List.of(65_535, 65_536, 65_537, 70_000));
    for (int i = 0; i < 3; i++) {
      sizes.add(1000 + rnd.nextInt(150_000));
    }
    for (int size : sizes) {
      List<byte[]> leaves = ReferenceTree.leaves(size);
      MapTileSource store = new MapTileSource();
      TileWriter w = TileWriter.empty();
      int done = 0;
      while (done < size) {
        int n = Math.min(size - done, 1 + rnd.nextInt(3000));
        store.putTiles(w.appendAll(leaves.subList(done, done + n)));
        done += n;
      }
      store.putTiles(w.partialTiles());
      byte[] root = ReferenceTree.root(leaves);
      TileReader r = new TileReader(store, size);
      assertArrayEquals(root, w.root(), "writer root " + size);
      assertArrayEquals(root, r.root(), "reader root " + size);
      for (int k = 0; k < 3; k++) {
        int index = rnd.nextInt(size);
        List<byte[]> proof = r.inclusionProof(index);
        assertHashesEqual(ReferenceTree.path(index, leaves), proof, "path " + index);
        InclusionProof.verify(index, size, leaves.get(index), proof, root);
        int old = rnd.nextInt(size + 1);
        List<byte[]> cons = r.consistencyProof(old);
        assertHashesEqual(ReferenceTree.proof(old, leaves), cons, "proof " + old);
        ConsistencyProof.verify(old, size, ReferenceTree.root(leaves.subList(0, old)), root, cons);
      }
    }
  }

  @Test
  void resumedWritersContinueExactlyWhereTheyStopped() throws Exception {
    int size = 70_000;
    List<byte[]> entries = entries(size);
    List<byte[]> leaves = leafHashes(entries);
    for (int stop : new int[] {0, 1, 255, 256, 257, 65_536, 66_000}) {
      MapTileSource store = new MapTileSource();
      TileWriter w = TileWriter.empty();
      BundleWriter b = BundleWriter.empty();
      for (int i = 0; i < stop; i++) {
        store.putTiles(w.append(leaves.get(i)));
        store.putBundle(b.append(entries.get(i)));
      }
      store.putTiles(w.partialTiles());
      store.putBundle(b.partialBundle());
      TileWriter resumed = TileWriter.resume(stop, store);
      BundleWriter resumedBundles = BundleWriter.resume(stop, store);
      assertEquals(stop, resumed.size());
      int partialHashes = 0;
      for (Tile t : w.partialTiles()) {
        partialHashes += t.id().width();
      }
      assertEquals(partialHashes, w.pendingHashes(), "held: the partial tiles' hashes");
      assertEquals(w.pendingHashes(), resumed.pendingHashes(), "resumed at " + stop);
      int partialEntries = stop % 256;
      long partialBytes = 0;
      for (byte[] e : entries.subList(stop - partialEntries, stop)) {
        partialBytes += e.length;
      }
      assertEquals(partialEntries, b.pendingEntries());
      assertEquals(partialBytes, b.pendingBytes(), "held: the partial bundle's entries");
      assertEquals(partialEntries, resumedBundles.pendingEntries());
      assertEquals(partialBytes, resumedBundles.pendingBytes(), "resumed at " + stop);
      assertArrayEquals(w.root(), resumed.root());
      for (int i = stop; i < size; i++) {
        store.putTiles(resumed.append(leaves.get(i)));
        store.putBundle(resumedBundles.append(entries.get(i)));
      }
      store.putTiles(resumed.partialTiles());
      store.putBundle(resumedBundles.partialBundle());
      TileReader r = new TileReader(store, size);
      assertArrayEquals(ReferenceTree.root(leaves), r.root(), "resumed at " + stop);
      assertHashesEqual(entries.subList(65_536, 65_536 + 256), r.entries(256), "bundle 256");
    }
  }

  @Test
  void aMissingPartialTileIsReadFromItsFullTile() throws Exception {
    List<byte[]> leaves = ReferenceTree.leaves(300);
    MapTileSource store = new MapTileSource();
    TileWriter w = TileWriter.empty();
    store.putTiles(w.appendAll(leaves));
    // Only full tiles and the partial tiles of size 300 are stored; size 100 has no partial tile.
    store.putTiles(w.partialTiles());
    assertTrue(store.files.containsKey("tile/0/000"));
    assertArrayEquals(
        ReferenceTree.root(leaves.subList(0, 100)), new TileReader(store, 100).root());
  }

  private static List<Long> sample(long bound, long... values) {
    Set<Long> out = new LinkedHashSet<>();
    for (long v : values) {
      if (v >= 0 && v < bound) {
        out.add(v);
      }
    }
    return new ArrayList<>(out);
  }

  static List<byte[]> entries(int n) {
    List<byte[]> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(("entry " + i).repeat(i % 5).getBytes(StandardCharsets.UTF_8));
    }
    return out;
  }

  static List<byte[]> leafHashes(List<byte[]> entries) {
    List<byte[]> out = new ArrayList<>(entries.size());
    for (byte[] e : entries) {
      out.add(Rfc6962.leafHash(e));
    }
    return out;
  }

  private static void assertHashesEqual(List<byte[]> want, List<byte[]> got, String what) {
    assertEquals(want.size(), got.size(), what + " length");
    for (int i = 0; i < want.size(); i++) {
      assertArrayEquals(want.get(i), got.get(i), what + " [" + i + "]");
    }
  }
}
