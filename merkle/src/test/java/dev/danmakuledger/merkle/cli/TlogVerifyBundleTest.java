package dev.danmakuledger.merkle.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.Checkpoints;
import dev.danmakuledger.merkle.checkpoint.CosignatureSigner;
import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tlog verify-bundle} on audit bundles of {@link BundleFixture}: a genuine bundle proves
 * every fact, and each corruption stops the audit at the check it breaks, with status 1 and a line
 * naming that check; malformed bundles and key files are input errors (status 2).
 */
class TlogVerifyBundleTest {
  private static final long SEQ = 7;

  @TempDir Path dir;
  private final BundleFixture fx = new BundleFixture();

  @Test
  void genuineBundleProvesEveryFact() throws IOException {
    TlogTest.Result r = verify(fx.bundle(SEQ));
    assertEquals(0, r.status(), r.err());
    List<String> lines = r.out().lines().toList();
    assertEquals(8, lines.size(), r.out());
    assertEquals(
        "ok  room checkpoint signed by danmaku-ledger/server-log/s1 for danmaku-ledger/room/r1,"
            + " size 300",
        lines.get(0));
    assertEquals(
        "ok  room entry is v1 message 253671505920020504 at seq 7, device kiosk-01 index 4",
        lines.get(1));
    assertEquals("ok  room entry included at index 6 of the room log of size 300", lines.get(2));
    assertTrue(lines.get(3).endsWith("is the entry's deviceLeafHashHex"), lines.get(3));
    assertEquals(
        "ok  record is device kiosk-01 index 4, key kiosk-01:alice:1732953600000:0000000000000004,"
            + " as the entry says",
        lines.get(4));
    assertEquals(
        "ok  device checkpoint signed by danmaku-ledger/device/kiosk-01 for"
            + " danmaku-ledger/device/kiosk-01, size 10",
        lines.get(5));
    assertEquals("ok  record included at index 4 of the device log of size 10", lines.get(6));
    assertEquals(
        "ok  device checkpoint cosigned (cosignature/v1) by danmaku-ledger/server/s1 at"
            + " 2025-12-01T08:40:00Z",
        lines.get(7));
    assertEquals("", r.err());
  }

  @Test
  void everyMessageOfTheRoomVerifies() throws IOException {
    for (long seq = 1; seq <= 14; seq++) {
      if (BundleFixture.isMessage(seq)) {
        assertEquals(0, verify(fx.bundle(seq)).status(), "seq " + seq);
      }
    }
  }

  @Test
  void wrongEntry() throws IOException {
    Map<String, Object> b = fx.bundle(SEQ);
    String e = new String(entry(b), StandardCharsets.US_ASCII).replace(" M 2536", " M 2537");
    b.put("entry", Base64.getEncoder().encodeToString(e.getBytes(StandardCharsets.US_ASCII)));
    assertInvalid(b, 2, "room inclusion: root mismatch");
  }

  @Test
  void entrySeqMismatch() throws IOException {
    Map<String, Object> b = fx.bundle(SEQ);
    b.put("seq", 8L);
    assertInvalid(b, 1, "room entry: got seq 7, want the bundle's 8");
  }

  @Test
  void tombstoneIsNotAMessageBundle() throws IOException {
    Map<String, Object> b = fx.bundle(SEQ);
    b.put("entry", Base64.getEncoder().encodeToString(fx.entry(6)));
    b.put("seq", 6L);
    assertInvalid(b, 1, "room entry: entry: a tombstone");
  }

  @Test
  void flippedBitInRoomProof() throws IOException {
    Map<String, Object> b = fx.bundle(SEQ);
    flipFirstHash(inclusion(b, "roomInclusion"));
    assertInvalid(b, 2, "room inclusion: root mismatch");
  }

  @Test
  void roomProofForAnotherIndexOrSize() throws IOException {
    Map<String, Object> b = fx.bundle(SEQ);
    inclusion(b, "roomInclusion").put("index", 7L);
    assertInvalid(b, 2, "room inclusion: got index 7, want seq - 1 = 6");
    b = fx.bundle(SEQ);
    inclusion(b, "roomInclusion").put("size", 299L);
    assertInvalid(b, 2, "room inclusion: proof is for size 299, the checkpoint has size 300");
  }

  @Test
  void roomCheckpointByAnotherKey() throws IOException {
    Map<String, Object> b = fx.bundle(SEQ);
    NoteSigner other = NoteSigner.generate(fx.logKey.name(), new SecureRandom());
    b.put("roomCheckpoint", resign((String) b.get("roomCheckpoint"), null, other));
    assertInvalid(b, 0, "room checkpoint: ");
  }

  @Test
  void wrongOrigin() throws IOException {
    Map<String, Object> b = fx.bundle(SEQ);
    b.put(
        "roomCheckpoint",
        resign((String) b.get("roomCheckpoint"), "danmaku-ledger/room/r2", fx.logKey));
    assertInvalid(
        b,
        0,
        "room checkpoint: origin: got \"danmaku-ledger/room/r2\", want \"danmaku-ledger/room/r1\"");
  }

  @Test
  void deviceLeafHashMismatch() throws IOException {
    Map<String, Object> b = fx.bundle(SEQ);
    b.put("record", Base64.getEncoder().encodeToString(BundleFixture.record(5)));
    assertInvalid(b, 3, "device leaf hash: the record hashes to ");
  }

  @Test
  void recordOfAnotherDevice() throws IOException {
    byte[] foreign = BundleFixture.record("kiosk-02", 4, "hello 4");
    fx.entryOverrides.put(
        SEQ,
        BundleFixture.messageEntry(
            SEQ, BundleFixture.DEVICE, 4, foreign, BundleFixture.key(BundleFixture.DEVICE, 4)));
    Map<String, Object> b = fx.bundle(SEQ);
    b.put("record", Base64.getEncoder().encodeToString(foreign));
    assertInvalid(
        b,
        4,
        "record: of device \"kiosk-02\", the entry names \"kiosk-01\" and the bundle \"kiosk-01\"");
  }

  @Test
  void recordWithAnotherIndexThanTheEntry() throws IOException {
    byte[] rec = BundleFixture.record(4);
    fx.entryOverrides.put(
        SEQ,
        BundleFixture.messageEntry(
            SEQ, BundleFixture.DEVICE, 5, rec, BundleFixture.key(BundleFixture.DEVICE, 4)));
    assertInvalid(fx.bundle(SEQ), 4, "record: has index 4, the entry says 5");
  }

  @Test
  void flippedBitInDeviceProof() throws IOException {
    Map<String, Object> b = fx.bundle(SEQ);
    flipFirstHash(inclusion(b, "deviceInclusion"));
    assertInvalid(b, 6, "device inclusion: root mismatch");
  }

  @Test
  void deviceCheckpointByAnotherDeviceKey() throws IOException {
    Map<String, Object> b = fx.bundle(SEQ);
    NoteSigner other = NoteSigner.generate(fx.deviceKey.name(), new SecureRandom());
    TlogTest.Result r = run(b, other.verifierKey());
    assertEquals(1, r.status(), r.out() + r.err());
    assertEquals(5, r.out().lines().count(), r.out());
    assertTrue(r.err().contains("invalid: device checkpoint: "), r.err());
  }

  @Test
  void deviceCheckpointNotCosigned() throws IOException {
    Map<String, Object> b = fx.bundle(SEQ);
    String note = (String) b.get("deviceCheckpoint");
    b.put("deviceCheckpoint", note.substring(0, note.lastIndexOf("— ")));
    assertInvalid(b, 7, "device checkpoint cosignature: no signature by danmaku-ledger/server/s1");
  }

  @Test
  void cosignedByAnotherKey() throws IOException {
    Map<String, Object> b = fx.bundle(SEQ);
    String note = (String) b.get("deviceCheckpoint");
    String plain = note.substring(0, note.lastIndexOf("— "));
    CosignatureSigner other = CosignatureSigner.generate(fx.cosigner.name(), new SecureRandom());
    b.put("deviceCheckpoint", other.cosign(plain, 1764578400L));
    assertInvalid(b, 7, "device checkpoint cosignature: ");
  }

  @Test
  void truncatedJson() throws IOException {
    String json = BundleFixture.json(fx.bundle(SEQ));
    assertUsage(json.substring(0, json.length() / 2), "truncated");
  }

  @Test
  void oversizedJson() throws IOException {
    String json = BundleFixture.json(fx.bundle(SEQ));
    assertUsage(json + " ".repeat((int) VerifyBundle.MAX_BUNDLE_BYTES), "want at most 1048576");
  }

  @Test
  void malformedJson() throws IOException {
    String json = BundleFixture.json(fx.bundle(SEQ));
    assertUsage(json.replaceFirst("\"seq\" : 7", "\"seq\" : 07"), "leading zero");
    assertUsage(json.replaceFirst("\"seq\" : 7", "\"seq\" : 7.0"), "want an integer");
    assertUsage(json.replaceFirst("\"seq\" : 7", "\"seq\" : \"7\""), "bundle.seq: got a string");
    assertUsage(json.replaceFirst("\\{", "{\"seq\": 7, "), "duplicate member \"seq\"");
    assertUsage(json.replaceFirst("\\{", "{\"extra\": 1, "), "unknown member \"extra\"");
    assertUsage(json.replaceFirst("\"format\" : \"[^\"]*\",", ""), "missing member \"format\"");
    assertUsage(json + "x", "text after the JSON value");
    assertUsage("[".repeat(100), "nested deeper than 16");
    assertUsage(
        json.replaceFirst("\"entry\" : \"", "\"entry\" : \"!"), "bundle.entry: want canonical");
    assertUsage("", "want a value");
  }

  @Test
  void malformedServerKeys() throws IOException {
    Path keys = Files.writeString(dir.resolve("keys.json"), "{\"logVerifierKey\": \"x+y+z\"}");
    Path bundle = Files.writeString(dir.resolve("b.json"), BundleFixture.json(fx.bundle(SEQ)));
    TlogTest.Result r =
        TlogTest.run(
            "verify-bundle",
            "--server-keys",
            keys.toString(),
            "--device-vkey",
            fx.deviceKey.verifierKey(),
            bundle.toString());
    assertEquals(2, r.status(), r.err());
    assertTrue(r.err().contains("--server-keys: server keys: missing member"), r.err());
  }

  private void assertInvalid(Map<String, Object> bundle, int provedBefore, String failure)
      throws IOException {
    TlogTest.Result r = verify(bundle);
    assertEquals(1, r.status(), r.out() + r.err());
    assertEquals(provedBefore, r.out().lines().count(), r.out());
    assertTrue(r.err().startsWith("tlog verify-bundle: invalid: " + failure), r.err());
  }

  private void assertUsage(String json, String message) throws IOException {
    Path keys = Files.writeString(dir.resolve("keys.json"), fx.serverKeysJson());
    Path bundle = Files.writeString(dir.resolve("bad.json"), json);
    TlogTest.Result r =
        TlogTest.run(
            "verify-bundle",
            "--server-keys",
            keys.toString(),
            "--device-vkey",
            fx.deviceKey.verifierKey(),
            bundle.toString());
    assertEquals(2, r.status(), r.out() + r.err());
    assertEquals("", r.out());
    assertTrue(r.err().contains(message), r.err());
  }

  private TlogTest.Result verify(Map<String, Object> bundle) throws IOException {
    return run(bundle, fx.deviceKey.verifierKey());
  }

  private TlogTest.Result run(Map<String, Object> bundle, String deviceVkey) throws IOException {
    Path keys = Files.writeString(dir.resolve("keys.json"), fx.serverKeysJson());
    Path file = Files.writeString(dir.resolve("bundle.json"), BundleFixture.json(bundle));
    return TlogTest.run(
        "verify-bundle",
        "--server-keys",
        keys.toString(),
        "--device-vkey",
        deviceVkey,
        file.toString());
  }

  private static byte[] entry(Map<String, Object> b) {
    return Base64.getDecoder().decode((String) b.get("entry"));
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> inclusion(Map<String, Object> b, String name) {
    return (Map<String, Object>) b.get(name);
  }

  @SuppressWarnings("unchecked")
  private static void flipFirstHash(Map<String, Object> inclusion) {
    List<String> proof = new ArrayList<>((List<String>) inclusion.get("proofHex"));
    byte[] h = HexFormat.of().parseHex(proof.get(0));
    h[5] ^= 0x10;
    proof.set(0, HexFormat.of().formatHex(h));
    inclusion.put("proofHex", proof);
  }

  /** Re-signs a checkpoint note's body, optionally with another origin, with {@code key}. */
  private static String resign(String note, String origin, NoteSigner key) {
    String body = note.substring(0, note.indexOf("\n\n") + 1);
    Checkpoint cp = Checkpoint.parse(body);
    return Checkpoints.sign(
        new Checkpoint(origin == null ? cp.origin() : origin, cp.size(), cp.root()), key);
  }
}
