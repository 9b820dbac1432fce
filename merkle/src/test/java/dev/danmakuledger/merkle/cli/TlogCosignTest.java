package dev.danmakuledger.merkle.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Base64;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** tlog keygen --type cosignature, tlog cosign and verify-checkpoint with a type 0x04 key. */
class TlogCosignTest {
  private static final Instant NOW = Instant.parse("2025-12-01T00:00:00Z");
  private static final String ORIGIN = "danmaku-ledger/room/r1";

  @TempDir Path dir;
  private String logVkey;
  private String cosignerVkey;
  private Path note;

  @BeforeEach
  void keysAndCheckpoint() throws IOException {
    Path leaves = Files.writeString(dir.resolve("leaves.txt"), TlogTest.CT_LEAVES);
    logVkey = TlogTest.run("keygen", "--name", ORIGIN, "--out", dir.toString()).out().strip();
    TlogTest.Result c =
        TlogTest.run(
            "keygen",
            "--name",
            "witness.example/w1",
            "--type",
            "cosignature",
            "--out",
            dir.toString());
    assertEquals(0, c.status(), c.err());
    cosignerVkey = c.out().strip();
    TlogTest.Result cp =
        TlogTest.run(
            "checkpoint",
            "--key",
            dir.resolve("danmaku-ledger%2Froom%2Fr1.key").toString(),
            "--origin",
            ORIGIN,
            leaves.toString());
    note = Files.writeString(dir.resolve("cp.note"), cp.out());
  }

  @Test
  void cosignerKeysAreType04() {
    String[] parts = cosignerVkey.split("\\+", 3);
    assertEquals("witness.example/w1", parts[0]);
    assertEquals(4, Base64.getDecoder().decode(parts[2])[0]);
    assertEquals(1, Base64.getDecoder().decode(logVkey.split("\\+", 3)[2])[0]);
  }

  @Test
  void cosignedCheckpointVerifiesWithBothKeys() throws IOException {
    Path cosigned = cosign(logVkey);
    TlogTest.Result byCosigner =
        TlogTest.run("verify-checkpoint", "--vkey", cosignerVkey, cosigned.toString());
    assertEquals(
        new TlogTest.Result(
            0, ORIGIN + " 8 " + TlogTest.CT_ROOT_8 + " cosigned 2025-12-01T00:00:00Z\n", ""),
        byCosigner);
    TlogTest.Result byLog =
        TlogTest.run(
            "verify-checkpoint", "--vkey", logVkey, "--origin", ORIGIN, cosigned.toString());
    assertEquals(new TlogTest.Result(0, ORIGIN + " 8 " + TlogTest.CT_ROOT_8 + "\n", ""), byLog);
    assertEquals(
        1,
        TlogTest.run(
                "verify-checkpoint",
                "--vkey",
                cosignerVkey,
                "--origin",
                "danmaku-ledger/room/r2",
                cosigned.toString())
            .status());
  }

  @Test
  void cosignRefusesANoteTheLogKeyDidNotSign() throws IOException {
    String otherLog =
        TlogTest.run("keygen", "--name", "other", "--out", dir.toString()).out().strip();
    TlogTest.Result r =
        TlogTest.runAt(
            NOW, "cosign", "--key", cosignerKey().toString(), "--vkey", otherLog, note.toString());
    assertEquals(1, r.status(), r.err());
    assertEquals("", r.out());
  }

  @Test
  void cosignWantsACosignerKey() {
    TlogTest.Result r =
        TlogTest.runAt(
            NOW,
            "cosign",
            "--key",
            dir.resolve("danmaku-ledger%2Froom%2Fr1.key").toString(),
            "--vkey",
            logVkey,
            note.toString());
    assertEquals(2, r.status());
    assertTrue(r.err().contains("got type 0x01"), r.err());
  }

  @Test
  void missingOrTamperedCosignatureIsInvalid() throws IOException {
    assertEquals(
        1, TlogTest.run("verify-checkpoint", "--vkey", cosignerVkey, note.toString()).status());
    Path cosigned = cosign(logVkey);
    Path tampered =
        Files.writeString(
            dir.resolve("t.note"), Files.readString(cosigned).replace("\n8\n", "\n9\n"));
    TlogTest.Result r =
        TlogTest.run("verify-checkpoint", "--vkey", cosignerVkey, tampered.toString());
    assertEquals(1, r.status());
    assertTrue(r.err().contains("does not verify"), r.err());
  }

  @Test
  void unknownKeyTypeIsAUsageError() {
    TlogTest.Result r =
        TlogTest.run("keygen", "--name", "x", "--type", "rsa", "--out", dir.toString());
    assertEquals(2, r.status());
    assertTrue(r.err().contains("want ed25519 (0x01) or cosignature (0x04)"), r.err());
  }

  private Path cosignerKey() {
    return dir.resolve("witness.example%2Fw1.key");
  }

  private Path cosign(String vkey) throws IOException {
    TlogTest.Result r =
        TlogTest.runAt(
            NOW, "cosign", "--key", cosignerKey().toString(), "--vkey", vkey, note.toString());
    assertEquals(0, r.status(), r.err());
    assertTrue(r.out().startsWith(Files.readString(note, StandardCharsets.UTF_8)), r.out());
    return Files.writeString(dir.resolve("cosigned.note"), r.out());
  }
}
