package dev.danmakuledger.merkle.checkpoint;

import static dev.danmakuledger.merkle.checkpoint.CheckpointsTest.resource;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.merkle.checkpoint.NoteVerificationException.Reason;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.Base64;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.crypto.signers.Ed25519Signer;
import org.junit.jupiter.api.Test;

/**
 * C2SP tlog-cosignature {@code cosignature/v1} (signature type 0x04). Golden files: {@code
 * golden-cosigner.key} is a fixed test key (seed SHA-256("danmaku-ledger golden cosigner")) and
 * {@code checkpoint-8-cosigned.note} is {@code checkpoint-8.note} cosigned by it at time
 * 1764547200; Ed25519 is deterministic, so cosigning reproduces the file byte for byte.
 */
class CosignatureTest {
  private static final String ORIGIN = "danmaku-ledger/device/golden-device";
  private static final long TIME = 1_764_547_200L;
  private static final CosignatureSigner COSIGNER =
      CosignatureSigner.fromPrivateKey(resource("golden-cosigner.key").strip());
  private static final CosignatureVerifier COSIGNER_KEY =
      CosignatureVerifier.parse(resource("golden-cosigner.vkey").strip());
  private static final NoteVerifier DEVICE_KEY =
      NoteVerifier.parse(resource("golden.vkey").strip());
  private static final String NOTE = resource("checkpoint-8.note");
  private static final String COSIGNED = resource("checkpoint-8-cosigned.note");

  /**
   * transparency-dev/formats note/note_cosigv1_test.go, commit 091ce416..., TestCoSigV1NewVerifier.
   */
  private static final String FORMATS_COSIG_VKEY =
      "remora.n621.de+da77ade7+BOvN63jn/bLvkieywe8R6UYAtVtNbZpXh34x7onlmtw2";

  private static final String FORMATS_ED25519_VKEY =
      "TEST+7997405c+AQcC+FTVKf0jlTdHDY3rbevmnKxxPjigCXlVtGe6RIr6";

  /** Same file, TestCoSigV1Timestamp: a cosignature blob with timestamp 1727964367. */
  private static final String FORMATS_COSIG_BLOB =
      "ZGhGuQAAAABm/qTPeyKXD+R2rzyQsxPiP8mXum7qq/iF0u4vanlqJyocWODBt97w9uL+8qT7S5gxEHWWOworDcFiEBYJXORmnFBOBA==";

  private static final String FORMATS_PLAIN_BLOB =
      "eQjRQm6eSKzFoiYalgwCPXu2y3ijtg68is9M46JKxuZB+dRfTmeQeDBoXnvxZx2ugnkyV+MUMLXpWs1hPb/W/4xkNQY=";

  /** C2SP tlog-cosignature, the example cosignature by witness.example.com/w1 and its message. */
  private static final String SPEC_WITNESS_BLOB =
      "jWbPPwAAAABkGFDLEZMHwSRaJNiIDoe9DYn/zXcrtPHeolMI5OWXEhZCB9dlrDJsX3b2oyin1nPZqhf5nNo0xUe+mbIUBkBIfZ+qnA==";

  private static final String SPEC_BODY =
      "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n";

  @Test
  void aKeyIdIsTheVkeyWithoutItsPublicKey() {
    assertEquals("remora.n621.de+da77ade7", CosignatureVerifier.parse(FORMATS_COSIG_VKEY).keyId());
    assertEquals(
        COSIGNER_KEY.name() + "+" + String.format("%08x", COSIGNER_KEY.keyHash()),
        COSIGNER_KEY.keyId());
  }

  @Test
  void cosigningReproducesTheGoldenNote() {
    assertEquals(COSIGNED, COSIGNER.cosign(NOTE, TIME));
    assertEquals(COSIGNER.verifierKey(), COSIGNER_KEY.verifierKey());
    assertEquals(resource("golden-cosigner.key").strip(), COSIGNER.privateKey());
  }

  @Test
  void goldenNoteCarriesAVerifiableDeviceSignatureAndCosignature() throws Exception {
    Checkpoint device = Checkpoints.open(COSIGNED, ORIGIN, DEVICE_KEY);
    Cosignatures.Cosigned c = Cosignatures.open(COSIGNED, ORIGIN, COSIGNER_KEY);
    assertEquals(device, c.checkpoint());
    assertEquals(8, c.checkpoint().size());
    assertEquals(TIME, c.timestamp());
  }

  /** Checks the golden cosignature with BouncyCastle directly over a hand-built message. */
  @Test
  void goldenCosignatureMatchesTheSpecifiedMessageIndependently() {
    byte[] blob = Base64.getDecoder().decode(lastSignatureBase64(COSIGNED));
    assertEquals(4 + 8 + 64, blob.length);
    ByteBuffer b = ByteBuffer.wrap(blob);
    assertEquals(COSIGNER_KEY.keyHash(), b.getInt());
    assertEquals(TIME, b.getLong());
    String message =
        "cosignature/v1\ntime 1764547200\n" + NOTE.substring(0, NOTE.indexOf("\n\n") + 1);
    Ed25519Signer v = new Ed25519Signer();
    v.init(false, new Ed25519PublicKeyParameters(COSIGNER_KEY.publicKey(), 0));
    byte[] msg = message.getBytes(StandardCharsets.UTF_8);
    v.update(msg, 0, msg.length);
    assertTrue(v.verifySignature(Arrays.copyOfRange(blob, 12, 76)));
  }

  @Test
  void keyIdIsTheHashOfNameNewlineType04AndKey() throws Exception {
    MessageDigest md = MessageDigest.getInstance("SHA-256");
    md.update(COSIGNER.name().getBytes(StandardCharsets.UTF_8));
    md.update((byte) 0x0a);
    md.update((byte) 0x04);
    md.update(COSIGNER_KEY.publicKey());
    assertEquals(ByteBuffer.wrap(md.digest()).getInt(), COSIGNER_KEY.keyHash());
  }

  @Test
  void publicVkeysOfBothTypesParse() {
    CosignatureVerifier remora = CosignatureVerifier.parse(FORMATS_COSIG_VKEY);
    assertEquals(0xda77ade7, remora.keyHash());
    assertEquals(FORMATS_COSIG_VKEY, remora.verifierKey());
    NoteVerifier test = NoteVerifier.parse(FORMATS_ED25519_VKEY);
    assertEquals(0x7997405c, test.keyHash());
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> CosignatureVerifier.parse(FORMATS_ED25519_VKEY));
    assertTrue(e.getMessage().contains("got type 0x01"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> NoteVerifier.parse(FORMATS_COSIG_VKEY));
    assertThrows(
        IllegalArgumentException.class,
        () -> CosignatureVerifier.parse(FORMATS_COSIG_VKEY.replace("da77ade7", "da77ade8")));
  }

  @Test
  void publicCosignatureTimestampsDecode() {
    assertEquals(1727964367L, Cosignatures.unverifiedTimestamp(FORMATS_COSIG_BLOB));
    assertEquals(1679315147L, Cosignatures.unverifiedTimestamp(SPEC_WITNESS_BLOB));
    assertThrows(
        IllegalArgumentException.class, () -> Cosignatures.unverifiedTimestamp(FORMATS_PLAIN_BLOB));
    assertThrows(IllegalArgumentException.class, () -> Cosignatures.unverifiedTimestamp("5%/$!"));
  }

  @Test
  void messageIsTheSpecExample() {
    assertEquals(
        "cosignature/v1\ntime 1679315147\n" + SPEC_BODY,
        Cosignatures.message(SPEC_BODY, 1679315147L));
  }

  @Test
  void deviceSignatureServerReceiptAndCosignatureAllVerify() throws Exception {
    NoteSigner server = NoteSigner.generate("danmaku-ledger/server/s1", new SecureRandom());
    String receipt = SignedNote.addSignature(NOTE, server);
    String both =
        COSIGNER.cosign(receipt, Clock.fixed(Instant.ofEpochSecond(TIME + 5), ZoneOffset.UTC));
    assertEquals(8, Checkpoints.open(both, ORIGIN, server.verifier()).size());
    assertEquals(8, Checkpoints.open(both, ORIGIN, DEVICE_KEY).size());
    assertEquals(TIME + 5, Cosignatures.open(both, ORIGIN, COSIGNER_KEY).timestamp());
    // Re-cosigning replaces the earlier cosignature instead of adding a second one.
    String again = COSIGNER.cosign(both, TIME + 9);
    assertEquals(TIME + 9, Cosignatures.open(again, ORIGIN, COSIGNER_KEY).timestamp());
    assertEquals(
        3, again.lines().filter(l -> l.startsWith("\u2014 ")).count(), "device, server, cosigner");
  }

  @Test
  void plainVerifierOfTheCosignerKeyDoesNotAcceptTheCosignature() {
    NoteVerifier plain = NoteVerifier.ofEd25519(COSIGNER.name(), COSIGNER_KEY.publicKey());
    NoteVerificationException e =
        assertThrows(
            NoteVerificationException.class, () -> Checkpoints.open(COSIGNED, ORIGIN, plain));
    assertEquals(Reason.UNKNOWN_KEY, e.reason());
  }

  @Test
  void flippedBitInCosignatureIsBadSignature() {
    byte[] blob = Base64.getDecoder().decode(lastSignatureBase64(COSIGNED));
    blob[40] ^= 1;
    assertReason(Reason.BAD_SIGNATURE, withLastSignature(COSIGNED, blob));
  }

  @Test
  void changedTimestampIsBadSignature() {
    byte[] blob = Base64.getDecoder().decode(lastSignatureBase64(COSIGNED));
    blob[11] ^= 1;
    assertReason(Reason.BAD_SIGNATURE, withLastSignature(COSIGNED, blob));
  }

  @Test
  void timestampAbove2To63IsBadSignature() {
    byte[] blob = Base64.getDecoder().decode(lastSignatureBase64(COSIGNED));
    blob[4] |= (byte) 0x80;
    assertReason(Reason.BAD_SIGNATURE, withLastSignature(COSIGNED, blob));
  }

  @Test
  void truncatedCosignatureIsBadSignature() {
    byte[] blob = Base64.getDecoder().decode(lastSignatureBase64(COSIGNED));
    assertReason(Reason.BAD_SIGNATURE, withLastSignature(COSIGNED, Arrays.copyOf(blob, 68)));
  }

  @Test
  void tamperedBodyIsBadSignature() {
    assertReason(Reason.BAD_SIGNATURE, COSIGNED.replace("\n8\n", "\n9\n"));
  }

  @Test
  void wrongOriginIsRejected() {
    NoteVerificationException e =
        assertThrows(
            NoteVerificationException.class,
            () -> Cosignatures.open(COSIGNED, "danmaku-ledger/device/other", COSIGNER_KEY));
    assertEquals(Reason.WRONG_ORIGIN, e.reason());
  }

  @Test
  void missingCosignatureIsUnknownKey() {
    assertReason(Reason.UNKNOWN_KEY, NOTE);
  }

  @Test
  void onlyCheckpointsAreCosignedAndTimestampsAreNonNegative() {
    String notCheckpoint = SignedNote.sign("hello\n", NoteSigner.generate("x", new SecureRandom()));
    assertThrows(IllegalArgumentException.class, () -> COSIGNER.cosign(notCheckpoint, TIME));
    assertThrows(IllegalArgumentException.class, () -> COSIGNER.cosign(NOTE, -1));
    assertThrows(
        IllegalArgumentException.class,
        () -> CosignatureSigner.fromPrivateKey(resource("golden.key").strip()));
  }

  private static void assertReason(Reason want, String note) {
    NoteVerificationException e =
        assertThrows(
            NoteVerificationException.class, () -> Cosignatures.open(note, ORIGIN, COSIGNER_KEY));
    assertEquals(want, e.reason(), e.getMessage());
  }

  private static String lastSignatureBase64(String note) {
    String[] lines = note.split("\n");
    String last = lines[lines.length - 1];
    return last.substring(last.lastIndexOf(' ') + 1);
  }

  private static String withLastSignature(String note, byte[] blob) {
    String b64 = lastSignatureBase64(note);
    return note.replace(b64, Base64.getEncoder().encodeToString(blob));
  }
}
