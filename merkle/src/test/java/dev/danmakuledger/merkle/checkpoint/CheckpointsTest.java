package dev.danmakuledger.merkle.checkpoint;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.danmakuledger.merkle.checkpoint.NoteVerificationException.Reason;
import dev.danmakuledger.merkle.hash.Rfc6962;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * Golden checkpoint notes: {@code golden.key} is a fixed test key; {@code checkpoint-8.note} signs
 * the 8-leaf CT test tree root (see Rfc6962Test) and {@code checkpoint-0.note} the empty tree.
 * Ed25519 is deterministic, so signing must reproduce the files byte for byte.
 */
class CheckpointsTest {
  private static final String ORIGIN = "danmaku-ledger/device/golden-device";
  private static final NoteSigner SIGNER =
      NoteSigner.fromPrivateKey(resource("golden.key").strip());
  private static final NoteVerifier VERIFIER = NoteVerifier.parse(resource("golden.vkey").strip());
  private static final byte[] ROOT_8 =
      HexFormat.of().parseHex("5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328");

  @Test
  void signingReproducesGoldenNotes() {
    assertEquals(
        resource("checkpoint-8.note"), Checkpoints.sign(new Checkpoint(ORIGIN, 8, ROOT_8), SIGNER));
    assertEquals(
        resource("checkpoint-0.note"),
        Checkpoints.sign(new Checkpoint(ORIGIN, 0, Rfc6962.emptyRoot()), SIGNER));
    assertEquals(SIGNER.verifierKey(), VERIFIER.verifierKey());
  }

  @Test
  void goldenNotesOpen() throws Exception {
    Checkpoint cp = Checkpoints.open(resource("checkpoint-8.note"), ORIGIN, VERIFIER);
    assertEquals(8, cp.size());
    assertArrayEquals(ROOT_8, cp.root());
    assertEquals(
        new Checkpoint(ORIGIN, 0, Rfc6962.emptyRoot()),
        Checkpoints.open(resource("checkpoint-0.note"), ORIGIN, VERIFIER));
  }

  @Test
  void wrongOriginIsRejectedAfterSignatureCheck() {
    NoteVerificationException e =
        assertThrows(
            NoteVerificationException.class,
            () -> Checkpoints.open(resource("checkpoint-8.note"), "other/log", VERIFIER));
    assertEquals(Reason.WRONG_ORIGIN, e.reason());
    assertEquals(
        "origin: got \"danmaku-ledger/device/golden-device\", want \"other/log\"", e.getMessage());
  }

  @Test
  void signedButMalformedBodyIsRejected() {
    String note = SignedNote.sign(ORIGIN + "\n8\nnot-base64\n", SIGNER);
    NoteVerificationException e =
        assertThrows(
            NoteVerificationException.class, () -> Checkpoints.open(note, ORIGIN, VERIFIER));
    assertEquals(Reason.MALFORMED, e.reason());
  }

  @Test
  void unsignedGarbageBodyFailsOnSignatureNotParsing() {
    String forged = resource("checkpoint-8.note").replace("\n8\n", "\n08\n");
    NoteVerificationException e =
        assertThrows(
            NoteVerificationException.class, () -> Checkpoints.open(forged, ORIGIN, VERIFIER));
    assertEquals(Reason.BAD_SIGNATURE, e.reason());
  }

  @Test
  void parseRejectsMalformedBodies() {
    String root = "XcnaeacGWamtVZy3Ad7ZoqudgjqtL0lgz+Nw7/RgQyg=";
    assertEquals(8, Checkpoint.parse("o\n8\n" + root + "\n").size());
    String[] bad = {
      "o\n8\n" + root,
      "o\n8\n" + root + "\nextension\n",
      "o\n08\n" + root + "\n",
      "o\n-1\n" + root + "\n",
      "o\n+8\n" + root + "\n",
      "o\n9223372036854775808\n" + root + "\n",
      "o\n8\n" + root.substring(4) + "\n",
      "o\n8\n" + root.replace("=", "") + "\n",
      "\n8\n" + root + "\n",
      " o\n8\n" + root + "\n",
      "o\n8\n",
    };
    for (String b : bad) {
      assertThrows(IllegalArgumentException.class, () -> Checkpoint.parse(b), b);
    }
  }

  @Test
  void constructorChecksPreconditions() {
    assertThrows(IllegalArgumentException.class, () -> new Checkpoint("", 1, ROOT_8));
    assertThrows(IllegalArgumentException.class, () -> new Checkpoint("a\nb", 1, ROOT_8));
    assertThrows(IllegalArgumentException.class, () -> new Checkpoint("o", -1, ROOT_8));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> new Checkpoint("o", 1, new byte[3]));
    assertEquals("root: got 3 bytes, want 32", e.getMessage());
  }

  static String resource(String name) {
    try (InputStream in = CheckpointsTest.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("missing test resource " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
