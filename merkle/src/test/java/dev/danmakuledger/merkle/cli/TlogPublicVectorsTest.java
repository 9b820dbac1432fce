package dev.danmakuledger.merkle.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.merkle.PublicVectors;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Runs every transparency-dev/merkle vector through {@code tlog verify-inclusion --leaf-hash} and
 * {@code tlog verify-consistency}. Expected exit status: 2 when the vector holds a value tlog
 * cannot take as input (a hash that is not 32 bytes, an index above 2^63-1), otherwise 1 for {@code
 * wantErr} and 0 for a valid proof.
 */
class TlogPublicVectorsTest {
  private static final HexFormat HEX = HexFormat.of();

  @TempDir Path dir;

  static Stream<Named<PublicVectors.Inclusion>> inclusionVectors() {
    return PublicVectors.inclusion().stream().map(v -> Named.of(v.name(), v));
  }

  static Stream<Named<PublicVectors.Consistency>> consistencyVectors() {
    return PublicVectors.consistency().stream().map(v -> Named.of(v.name(), v));
  }

  @ParameterizedTest
  @MethodSource("inclusionVectors")
  void inclusionVector(PublicVectors.Inclusion v) throws IOException {
    TlogTest.Result r = runInclusion(v);
    int want = v.hasMalformedInput() ? Tlog.USAGE : v.wantErr() ? Tlog.INVALID : Tlog.OK;
    assertEquals(want, r.status(), v.name() + ": " + r.err());
    assertEquals(want == Tlog.OK ? "ok\n" : "", r.out());
  }

  @ParameterizedTest
  @MethodSource("consistencyVectors")
  void consistencyVector(PublicVectors.Consistency v) throws IOException {
    TlogTest.Result r = runConsistency(v);
    int want = v.hasMalformedInput() ? Tlog.USAGE : v.wantErr() ? Tlog.INVALID : Tlog.OK;
    assertEquals(want, r.status(), v.name() + ": " + r.err());
  }

  /**
   * Every inclusion vector and all consistency vectors but one get tlog's verdict (0 = accepted,
   * anything else = rejected) the vector asks for. The exception expects equal 12-byte "don't care"
   * roots to pass; tlog refuses them as input (exit 2, "want 32") because no tree has a 12-byte
   * root (RFC 9162 §2.1.1).
   */
  @Test
  void verdictsAgreeWithTheVectorsExceptForNonHashRoots() throws IOException {
    for (PublicVectors.Inclusion v : PublicVectors.inclusion()) {
      assertEquals(!v.wantErr(), runInclusion(v).status() == Tlog.OK, v.name());
    }
    List<String> disagree =
        PublicVectors.consistency().stream()
            .filter(v -> v.wantErr() == (runConsistencyUnchecked(v).status() == Tlog.OK))
            .map(PublicVectors.Consistency::name)
            .collect(Collectors.toList());
    assertEquals(List.of(PublicVectors.NON_HASH_ROOTS_EXPECTED_OK), disagree);
    PublicVectors.Consistency odd =
        PublicVectors.consistency().stream()
            .filter(v -> v.name().equals(PublicVectors.NON_HASH_ROOTS_EXPECTED_OK))
            .findFirst()
            .orElseThrow();
    TlogTest.Result r = runConsistency(odd);
    assertEquals(Tlog.USAGE, r.status());
    assertTrue(r.err().contains("--old-root: got 12 bytes, want 32"), r.err());
  }

  private TlogTest.Result runInclusion(PublicVectors.Inclusion v) throws IOException {
    Path proof = writeProof(v.proof());
    return TlogTest.run(
        "verify-inclusion",
        "--index",
        v.leafIdx().toString(),
        "--size",
        v.treeSize().toString(),
        "--leaf-hash",
        HEX.formatHex(v.leafHash()),
        "--root",
        HEX.formatHex(v.root()),
        proof.toString());
  }

  private TlogTest.Result runConsistency(PublicVectors.Consistency v) throws IOException {
    Path proof = writeProof(v.proof());
    return TlogTest.run(
        "verify-consistency",
        "--old",
        v.size1().toString(),
        "--new",
        v.size2().toString(),
        "--old-root",
        HEX.formatHex(v.root1()),
        "--new-root",
        HEX.formatHex(v.root2()),
        proof.toString());
  }

  private TlogTest.Result runConsistencyUnchecked(PublicVectors.Consistency v) {
    try {
      return runConsistency(v);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private Path writeProof(List<byte[]> proof) throws IOException {
    Path p = Files.createTempFile(dir, "proof", ".txt");
    StringBuilder sb = new StringBuilder();
    for (byte[] h : proof) {
      sb.append(HEX.formatHex(h)).append('\n');
    }
    Files.writeString(p, sb.toString(), StandardCharsets.UTF_8);
    return p;
  }
}
