package dev.danmakuledger.merkle.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.danmakuledger.merkle.ReferenceTree;
import dev.danmakuledger.merkle.hash.Rfc6962;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** tlog's roots and proofs agree with the recursive RFC 9162 reference on random trees. */
class TlogReferenceTest {
  private static final HexFormat HEX = HexFormat.of();

  @TempDir Path dir;

  @Test
  void agreesWithReferenceOnRandomTrees() throws IOException {
    Random rnd = new Random(6962L);
    for (int trial = 0; trial < 25; trial++) {
      int size = 1 + rnd.nextInt(trial < 20 ? 70 : 700);
      StringBuilder file = new StringBuilder();
      List<byte[]> hashes = new ArrayList<>();
      for (int i = 0; i < size; i++) {
        byte[] leaf = new byte[rnd.nextInt(20)];
        rnd.nextBytes(leaf);
        file.append(HEX.formatHex(leaf)).append('\n');
        hashes.add(Rfc6962.leafHash(leaf));
      }
      Path leaves = Files.writeString(dir.resolve("t" + trial + ".txt"), file);
      String what = "trial " + trial + " size " + size;

      assertEquals(
          HEX.formatHex(ReferenceTree.root(hashes)) + "\n",
          TlogTest.run("root", leaves.toString()).out(),
          what);
      int index = rnd.nextInt(size);
      assertEquals(
          lines(ReferenceTree.path(index, hashes)),
          TlogTest.run("inclusion", "--index", "" + index, leaves.toString()).out(),
          what + " index " + index);
      int old = rnd.nextInt(size + 1);
      assertEquals(
          lines(ReferenceTree.proof(old, hashes)),
          TlogTest.run("consistency", "--old", "" + old, leaves.toString()).out(),
          what + " old " + old);
    }
  }

  private static String lines(List<byte[]> hashes) {
    StringBuilder sb = new StringBuilder();
    for (byte[] h : hashes) {
      sb.append(HEX.formatHex(h)).append('\n');
    }
    return sb.toString();
  }
}
