package dev.danmakuledger.merkle.hash;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.danmakuledger.merkle.compact.CompactRange;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Pins RFC 6962 hashing to published vectors. Provenance: the leaf inputs and successive roots are
 * google/trillian {@code testonly/compact_merkle_tree.go} (MerkleTreeLeafTestInputs /
 * MerkleTreeLeafTestRootHashes), themselves taken from google/certificate-transparency {@code
 * cpp/merkletree/merkle_tree_test.cc}; the empty root is SHA-256 of the empty string.
 */
class Rfc6962Test {
  private static final HexFormat HEX = HexFormat.of();

  static final String[] LEAF_INPUTS = {
    "",
    "00",
    "10",
    "2021",
    "3031",
    "40414243",
    "5051525354555657",
    "606162636465666768696a6b6c6d6e6f"
  };

  static final String[] ROOTS = {
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
  };

  @Test
  void emptyRootIsSha256OfEmptyString() {
    assertEquals(
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        HEX.formatHex(Rfc6962.emptyRoot()));
  }

  @Test
  void emptyLeafHashIsRootOfSingleEmptyLeaf() {
    assertEquals(ROOTS[0], HEX.formatHex(Rfc6962.leafHash(new byte[0])));
  }

  @Test
  void successiveRootsMatchCertificateTransparencyVectors() {
    CompactRange range = CompactRange.empty();
    for (int i = 0; i < LEAF_INPUTS.length; i++) {
      range.append(Rfc6962.leafHash(HEX.parseHex(LEAF_INPUTS[i])));
      assertEquals(ROOTS[i], HEX.formatHex(range.root()), "root after " + (i + 1) + " leaves");
    }
  }

  @Test
  void perfectRootsMatchTheVectorsOfPowerOfTwoTrees() {
    List<byte[]> leaves = new ArrayList<>();
    leaves.add(Rfc6962.leafHash(new byte[] {0x7f})); // before the window: must not be read
    for (String input : LEAF_INPUTS) {
      leaves.add(Rfc6962.leafHash(HEX.parseHex(input)));
    }
    for (int count = 1; count <= LEAF_INPUTS.length; count *= 2) {
      assertEquals(
          ROOTS[count - 1],
          HEX.formatHex(Rfc6962.perfectRoot(leaves, 1, count)),
          "root of " + count + " leaves");
    }
    for (int count : new int[] {0, 3, 6}) {
      assertThrows(IllegalArgumentException.class, () -> Rfc6962.perfectRoot(leaves, 1, count));
    }
  }

  @Test
  void nodeHashPrefixesOneAndConcatenates() throws Exception {
    byte[] l = Rfc6962.leafHash(HEX.parseHex("00"));
    byte[] r = Rfc6962.leafHash(HEX.parseHex("10"));
    java.security.MessageDigest md = java.security.MessageDigest.getInstance("SHA-256");
    md.update((byte) 1);
    md.update(l);
    md.update(r);
    assertArrayEquals(md.digest(), Rfc6962.nodeHash(l, r));
  }

  @Test
  void nodeHashRejectsWrongLengthChildren() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> Rfc6962.nodeHash(new byte[31], new byte[32]));
    assertEquals("left: got 31 bytes, want 32", e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> Rfc6962.nodeHash(new byte[32], null));
  }

  @Test
  void emptyRootReturnsDefensiveCopy() {
    Rfc6962.emptyRoot()[0] ^= 1;
    assertEquals((byte) 0xe3, Rfc6962.emptyRoot()[0]);
  }
}
