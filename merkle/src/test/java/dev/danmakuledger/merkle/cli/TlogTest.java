package dev.danmakuledger.merkle.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.merkle.hash.Rfc6962;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs tlog in-process, checking stdout, stderr and exit status of every command. */
class TlogTest {
  /** Leaf inputs and root of the CT test tree (see Rfc6962Test for provenance). */
  static final String CT_LEAVES =
      "\n00\n10\n2021\n3031\n40414243\n5051525354555657\n606162636465666768696a6b6c6d6e6f\n";

  static final String CT_ROOT_8 =
      "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328";
  static final String CT_ROOT_3 =
      "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77";

  @TempDir Path dir;
  private Path leaves;

  record Result(int status, String out, String err) {}

  @BeforeEach
  void writeLeaves() throws IOException {
    leaves = write("leaves.txt", CT_LEAVES);
  }

  static Result run(long maxInput, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status =
        new Tlog(
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                maxInput,
                new SecureRandom())
            .run(args);
    return new Result(
        status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  static Result run(String... args) {
    return run(Tlog.DEFAULT_MAX_INPUT_BYTES, args);
  }

  /** Runs tlog with a fixed clock, for commands that timestamp (cosign). */
  static Result runAt(java.time.Instant now, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status =
        new Tlog(
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                Tlog.DEFAULT_MAX_INPUT_BYTES,
                new SecureRandom(),
                java.time.Clock.fixed(now, java.time.ZoneOffset.UTC))
            .run(args);
    return new Result(
        status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void rootPrintsCtVectorRoot() {
    Result r = run("root", leaves.toString());
    assertEquals(new Result(0, CT_ROOT_8 + "\n", ""), r);
  }

  @Test
  void rootOfEmptyFileIsEmptyTreeHash() throws IOException {
    Result r = run("root", write("empty.txt", "").toString());
    assertEquals("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n", r.out());
  }

  @Test
  void inclusionProofVerifies() throws IOException {
    Result proof = run("inclusion", "--index", "5", leaves.toString());
    assertEquals(0, proof.status());
    assertEquals(3, proof.out().lines().count());
    Path p = write("proof.txt", proof.out());
    Result ok =
        run(
            "verify-inclusion",
            "--index",
            "5",
            "--size",
            "8",
            "--leaf-hex",
            "40414243",
            "--root",
            CT_ROOT_8,
            p.toString());
    assertEquals(new Result(0, "ok\n", ""), ok);
  }

  @Test
  void wrongLeafIsInvalidWithStatus1() throws IOException {
    Path p = write("proof.txt", run("inclusion", "--index=5", leaves.toString()).out());
    Result bad =
        run(
            "verify-inclusion",
            "--index",
            "5",
            "--size",
            "8",
            "--leaf-hex",
            "40414244",
            "--root",
            CT_ROOT_8,
            p.toString());
    assertEquals(1, bad.status());
    assertEquals("", bad.out());
    assertTrue(bad.err().contains("invalid: root mismatch: computed "), bad.err());
  }

  @Test
  void truncatedProofIsInvalidWithStatus1() throws IOException {
    String proof = run("inclusion", "--index", "5", leaves.toString()).out();
    Path p = write("proof.txt", proof.substring(0, proof.indexOf('\n') + 1));
    Result bad =
        run(
            "verify-inclusion",
            "--index",
            "5",
            "--size",
            "8",
            "--leaf-hex",
            "40414243",
            "--root",
            CT_ROOT_8,
            p.toString());
    assertEquals(1, bad.status());
    assertTrue(bad.err().contains("proof length for index 5 in size 8: got 1, want 3"), bad.err());
  }

  @Test
  void consistencyProofVerifiesAndFlippedRootFails() throws IOException {
    Result proof = run("consistency", "--old", "3", leaves.toString());
    Path p = write("c.txt", proof.out());
    String[] args = {
      "verify-consistency",
      "--old",
      "3",
      "--new",
      "8",
      "--old-root",
      CT_ROOT_3,
      "--new-root",
      CT_ROOT_8,
      p.toString()
    };
    assertEquals(new Result(0, "ok\n", ""), run(args));
    args[6] = CT_ROOT_3.replace("aeb6", "aeb7");
    assertEquals(1, run(args).status());
  }

  @Test
  void outOfRangeIndexIsUsageError() {
    Result r = run("inclusion", "--index", "8", leaves.toString());
    assertEquals(2, r.status());
    assertTrue(r.err().contains("--index: got 8, want 0 <= index < tree size 8"), r.err());
    assertEquals(2, run("consistency", "--old", "9", leaves.toString()).status());
    assertEquals(2, run("inclusion", "--index", "-1", leaves.toString()).status());
    assertEquals(2, run("inclusion", "--index", "x", leaves.toString()).status());
  }

  @Test
  void malformedHexInLeavesIsUsageErrorNamingTheLine() throws IOException {
    Path bad = write("bad.txt", "00\nzz\n");
    Result r = run("root", bad.toString());
    assertEquals(2, r.status());
    assertTrue(r.err().contains("bad.txt line 2: invalid hex \"zz\""), r.err());
    assertEquals(2, run("root", write("odd.txt", "abc\n").toString()).status());
  }

  @Test
  void proofLineOfWrongLengthIsUsageError() throws IOException {
    Path p = write("p.txt", "00ff\n");
    Result r =
        run(
            "verify-inclusion",
            "--index",
            "0",
            "--size",
            "2",
            "--leaf-hex",
            "",
            "--root",
            CT_ROOT_8,
            p.toString());
    assertEquals(2, r.status());
    assertTrue(r.err().contains("line 1: got 2 bytes, want 32"), r.err());
  }

  @Test
  void malformedHexOptionIsUsageError() throws IOException {
    Path p = write("p.txt", "");
    Result r =
        run(
            "verify-inclusion",
            "--index",
            "0",
            "--size",
            "1",
            "--leaf-hex",
            "0g",
            "--root",
            CT_ROOT_8,
            p.toString());
    assertEquals(2, r.status());
    assertTrue(r.err().contains("--leaf-hex: invalid hex \"0g\""), r.err());
    Result root =
        run(
            "verify-inclusion",
            "--index",
            "0",
            "--size",
            "1",
            "--leaf-hex",
            "",
            "--root",
            "abcd",
            p.toString());
    assertEquals(2, root.status());
    assertTrue(root.err().contains("--root: got 2 bytes, want 32"), root.err());
  }

  @Test
  void missingFileIsUsageError() {
    Result r = run("root", dir.resolve("nope.txt").toString());
    assertEquals(2, r.status());
    assertTrue(r.err().contains("nope.txt: no such file"), r.err());
  }

  @Test
  void oversizedInputIsUsageError() throws IOException {
    Path big = write("big.txt", "00\n".repeat(100));
    Result r = run(64, "root", big.toString());
    assertEquals(2, r.status());
    assertTrue(r.err().contains("got 300 bytes, want at most 64"), r.err());
  }

  @Test
  void invalidUtf8IsUsageError() throws IOException {
    Path p = dir.resolve("bin.txt");
    Files.write(p, new byte[] {(byte) 0xff, '\n'});
    assertEquals(2, run("root", p.toString()).status());
  }

  @Test
  void usageErrors() {
    assertEquals(2, run().status());
    assertEquals(2, run("frobnicate").status());
    assertEquals(2, run("root").status());
    assertEquals(2, run("root", "a", "b").status());
    assertEquals(2, run("root", "--bogus", "1", leaves.toString()).status());
    assertEquals(2, run("inclusion", leaves.toString()).status());
    assertEquals(2, run("inclusion", "--index").status());
    Result twice = run("inclusion", "--index", "1", "--index", "2", leaves.toString());
    assertEquals(2, twice.status());
    assertTrue(twice.err().contains("option --index given twice"), twice.err());
  }

  @Test
  void helpPrintsUsageAndSucceeds() {
    Result r = run("--help");
    assertEquals(0, r.status());
    assertTrue(r.out().contains("verify-consistency --old M --new N"), r.out());
    assertEquals(0, run("root", "--help").status());
  }

  @Test
  void keygenWritesPrivateKeyWithMode0600AndRefusesOverwrite() throws IOException {
    Result r = run("keygen", "--name", "example.org-log", "--out", dir.toString());
    assertEquals(0, r.status(), r.err());
    assertTrue(r.out().startsWith("example.org-log+"), r.out());
    Path key = dir.resolve("example.org-log.key");
    assertTrue(Files.readString(key).startsWith("PRIVATE+KEY+example.org-log+"));
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(key)));
    Result again = run("keygen", "--name", "example.org-log", "--out", dir.toString());
    assertEquals(2, again.status());
    assertTrue(again.err().contains("refusing to overwrite"), again.err());
    assertEquals(2, run("keygen", "--name", "a+b", "--out", dir.toString()).status());
    assertEquals(2, run("keygen", "--name", "a b", "--out", dir.toString()).status());
  }

  @Test
  void keygenAcceptsKeyNamesWithSlashesAndWritesADerivedFileInsideDir() throws IOException {
    Result r = run("keygen", "--name", "danmaku-ledger/room/r1", "--out", dir.toString());
    assertEquals(0, r.status(), r.err());
    assertTrue(r.out().startsWith("danmaku-ledger/room/r1+"), r.out());
    Path key = dir.resolve("danmaku-ledger%2Froom%2Fr1.key");
    assertTrue(r.err().contains(key.toString()), r.err());
    assertTrue(Files.readString(key).startsWith("PRIVATE+KEY+danmaku-ledger/room/r1+"));
    Result cp =
        run(
            "checkpoint",
            "--key",
            key.toString(),
            "--origin",
            "danmaku-ledger/room/r1",
            leaves.toString());
    assertEquals(0, cp.status(), cp.err());
    Path note = write("room.note", cp.out());
    assertEquals(0, run("verify-checkpoint", "--vkey", r.out().strip(), note.toString()).status());
  }

  @Test
  void keygenNeverWritesOutsideDir() throws IOException {
    Result r = run("keygen", "--name", "../evil", "--out", dir.toString());
    assertEquals(0, r.status(), r.err());
    assertTrue(Files.exists(dir.resolve("%2E.%2Fevil.key")));
    assertFalse(Files.exists(dir.resolveSibling("evil.key")));
    try (var files = Files.list(dir)) {
      assertEquals(1, files.filter(f -> f.toString().endsWith(".key")).count());
    }
  }

  @Test
  void keyFileNamesAreDistinctForDistinctKeyNames() {
    assertEquals("example.org-log.key", KeyFileName.of("example.org-log"));
    assertEquals("a%2Fb.key", KeyFileName.of("a/b"));
    assertEquals("a%252Fb.key", KeyFileName.of("a%2Fb"));
    assertEquals("%2Ehidden.key", KeyFileName.of(".hidden"));
    assertEquals("a%5Cb.key", KeyFileName.of("a\\b"));
    assertEquals("%E5%BC%B9%E5%B9%95.key", KeyFileName.of("\u5f39\u5e55"));
    assertEquals(2, run("keygen", "--name", "x".repeat(251), "--out", dir.toString()).status());
  }

  @Test
  void checkpointRoundTripsAndRejectsForeignKeyAndWrongOrigin() throws IOException {
    String vkey = run("keygen", "--name", "log", "--out", dir.toString()).out().strip();
    Result cp =
        run(
            "checkpoint",
            "--key",
            dir.resolve("log.key").toString(),
            "--origin",
            "example.org/log",
            leaves.toString());
    assertEquals(0, cp.status(), cp.err());
    Path note = write("cp.note", cp.out());
    assertEquals(
        new Result(0, "example.org/log 8 " + CT_ROOT_8 + "\n", ""),
        run("verify-checkpoint", "--vkey", vkey, note.toString()));
    assertEquals(
        0,
        run("verify-checkpoint", "--vkey", vkey, "--origin", "example.org/log", note.toString())
            .status());
    Result origin =
        run("verify-checkpoint", "--vkey", vkey, "--origin", "other/log", note.toString());
    assertEquals(1, origin.status());
    String otherKey = run("keygen", "--name", "other", "--out", dir.toString()).out().strip();
    Result foreign = run("verify-checkpoint", "--vkey", otherKey, note.toString());
    assertEquals(1, foreign.status());
    assertTrue(foreign.err().contains("no signature by other"), foreign.err());
    Path tampered = write("t.note", cp.out().replace("\n8\n", "\n9\n"));
    assertEquals(1, run("verify-checkpoint", "--vkey", vkey, tampered.toString()).status());
    assertEquals(2, run("verify-checkpoint", "--vkey", "garbage", note.toString()).status());
  }

  @Test
  void checkpointWithBadKeyFileIsUsageError() throws IOException {
    Path key = write("bad.key", "PRIVATE+KEY+nope\n");
    assertEquals(
        2, run("checkpoint", "--key", key.toString(), "--origin", "o", leaves.toString()).status());
  }

  private Path write(String name, String content) throws IOException {
    return Files.writeString(dir.resolve(name), content, StandardCharsets.UTF_8);
  }

  @Test
  void verifyInclusionAcceptsTheLeafHashInsteadOfItsData() throws IOException {
    Path p = write("proof.txt", run("inclusion", "--index", "5", leaves.toString()).out());
    String leafHash =
        HexFormat.of().formatHex(Rfc6962.leafHash(HexFormat.of().parseHex("40414243")));
    Result ok =
        run(
            "verify-inclusion",
            "--index=5",
            "--size=8",
            "--leaf-hash",
            leafHash,
            "--root",
            CT_ROOT_8,
            p.toString());
    assertEquals(new Result(0, "ok\n", ""), ok);
    Result wrongLeaf =
        run(
            "verify-inclusion",
            "--index=5",
            "--size=8",
            "--leaf-hash",
            CT_ROOT_8,
            "--root",
            CT_ROOT_8,
            p.toString());
    assertEquals(1, wrongLeaf.status());
    assertTrue(wrongLeaf.err().contains("root mismatch"), wrongLeaf.err());
  }

  @Test
  void verifyInclusionWantsExactlyOneLeafForm() throws IOException {
    Path p = write("proof.txt", run("inclusion", "--index", "5", leaves.toString()).out());
    Result both =
        run(
            "verify-inclusion",
            "--index=5",
            "--size=8",
            "--leaf-hex=40414243",
            "--leaf-hash=" + CT_ROOT_8,
            "--root=" + CT_ROOT_8,
            p.toString());
    assertEquals(2, both.status());
    assertTrue(both.err().contains("want exactly one of --leaf-hex"), both.err());
    Result neither =
        run("verify-inclusion", "--index=5", "--size=8", "--root=" + CT_ROOT_8, p.toString());
    assertEquals(2, neither.status());
    Result shortHash =
        run(
            "verify-inclusion",
            "--index=5",
            "--size=8",
            "--leaf-hash=4041",
            "--root=" + CT_ROOT_8,
            p.toString());
    assertEquals(2, shortHash.status());
    assertTrue(shortHash.err().contains("--leaf-hash: got 2 bytes, want 32"), shortHash.err());
  }
}
