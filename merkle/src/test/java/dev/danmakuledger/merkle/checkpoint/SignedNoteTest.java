package dev.danmakuledger.merkle.checkpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.danmakuledger.merkle.checkpoint.NoteVerificationException.Reason;
import java.security.SecureRandom;
import org.junit.jupiter.api.Test;

class SignedNoteTest {
  /**
   * The example of golang.org/x/mod/sumdb/note (package documentation of note.go, also
   * ExampleSign/ExampleOpen in example_test.go): a standard implementation's key pair and note.
   */
  static final String GO_PRIVATE_KEY =
      "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz";

  static final String GO_VERIFIER_KEY =
      "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW";
  static final String GO_TEXT =
      "If you think cryptography is the answer to your problem,\n"
          + "then you don't know what your problem is.\n";
  static final String GO_NOTE =
      GO_TEXT
          + "\n"
          + "\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n";

  private static final NoteVerifier GO_VERIFIER = NoteVerifier.parse(GO_VERIFIER_KEY);

  @Test
  void opensNoteSignedByGoImplementation() throws Exception {
    assertEquals(GO_TEXT, SignedNote.open(GO_NOTE, GO_VERIFIER));
    assertEquals(0xc74f20a3, GO_VERIFIER.keyHash());
    assertEquals("PeterNeumann", GO_VERIFIER.name());
  }

  @Test
  void signsExactlyAsGoImplementation() {
    NoteSigner signer = NoteSigner.fromPrivateKey(GO_PRIVATE_KEY);
    assertEquals(GO_VERIFIER_KEY, signer.verifierKey());
    assertEquals(GO_PRIVATE_KEY, signer.privateKey());
    assertEquals(GO_NOTE, SignedNote.sign(GO_TEXT, signer));
  }

  @Test
  void tamperedTextFailsSignature() {
    String tampered = GO_NOTE.replace("cryptography", "cryptographY");
    NoteVerificationException e =
        assertThrows(NoteVerificationException.class, () -> SignedNote.open(tampered, GO_VERIFIER));
    assertEquals(Reason.BAD_SIGNATURE, e.reason());
  }

  @Test
  void signatureByOtherKeyIsUnknownKey() {
    NoteSigner other = NoteSigner.generate("Other", new SecureRandom());
    String note = SignedNote.sign(GO_TEXT, other);
    assertReason(Reason.UNKNOWN_KEY, note, GO_VERIFIER);
  }

  @Test
  void sameNameWithWrongKeyHashIsBadHint() {
    NoteSigner impostor = NoteSigner.generate("PeterNeumann", new SecureRandom());
    NoteVerificationException e =
        assertThrows(
            NoteVerificationException.class,
            () -> SignedNote.open(SignedNote.sign(GO_TEXT, impostor), GO_VERIFIER));
    assertEquals(Reason.UNKNOWN_KEY, e.reason());
    assertEquals(
        "signature by PeterNeumann has key hash ["
            + String.format("%08x", impostor.keyHash())
            + "], want c74f20a3",
        e.getMessage());
  }

  @Test
  void rightHintWithForeignSignatureIsBadSignature() {
    NoteSigner impostor = NoteSigner.generate("x", new SecureRandom());
    byte[] sig = impostor.sign(GO_TEXT.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    byte[] blob = java.nio.ByteBuffer.allocate(68).putInt(0xc74f20a3).put(sig).array();
    String note =
        GO_TEXT
            + "\n\u2014 PeterNeumann "
            + java.util.Base64.getEncoder().encodeToString(blob)
            + "\n";
    assertReason(Reason.BAD_SIGNATURE, note, GO_VERIFIER);
  }

  @Test
  void cosignedNoteOpensWithEitherKey() throws Exception {
    NoteSigner witness = NoteSigner.generate("witness", new SecureRandom());
    String cosigned = SignedNote.addSignature(GO_NOTE, witness);
    assertEquals(GO_TEXT, SignedNote.open(cosigned, GO_VERIFIER));
    assertEquals(GO_TEXT, SignedNote.open(cosigned, witness.verifier()));
    String resigned = SignedNote.addSignature(cosigned, witness);
    assertEquals(2, resigned.split("\u2014 ", -1).length - 1, "re-signing replaces the line");
  }

  @Test
  void rejectsMalformedNotes() {
    String sig = GO_NOTE.substring(GO_TEXT.length() + 1);
    assertReason(Reason.MALFORMED, GO_NOTE.substring(0, GO_NOTE.length() - 1), GO_VERIFIER);
    assertReason(Reason.MALFORMED, GO_TEXT + sig, GO_VERIFIER);
    assertReason(Reason.MALFORMED, GO_NOTE + "trailing garbage\n", GO_VERIFIER);
    assertReason(Reason.MALFORMED, GO_NOTE + "\n", GO_VERIFIER);
    assertReason(Reason.MALFORMED, GO_NOTE.replace("\u2014 ", "-- "), GO_VERIFIER);
    assertReason(
        Reason.MALFORMED,
        GO_NOTE.replace("\u2014 PeterNeumann ", "\u2014 PeterNeumann"),
        GO_VERIFIER);
    assertReason(Reason.MALFORMED, GO_NOTE.replace("AM=\n", "AM\n"), GO_VERIFIER);
    assertReason(Reason.MALFORMED, GO_NOTE.replace("AM=\n", "A*=\n"), GO_VERIFIER);
    assertReason(
        Reason.MALFORMED,
        GO_NOTE.replace("\u2014 PeterNeumann", "\u2014 Peter+Neumann"),
        GO_VERIFIER);
    assertReason(Reason.MALFORMED, "\u0001" + GO_NOTE, GO_VERIFIER);
    assertReason(Reason.MALFORMED, GO_TEXT + "\n\u2014 PeterNeumann AQID\n", GO_VERIFIER);
    assertReason(Reason.MALFORMED, "", GO_VERIFIER);
    assertReason(Reason.MALFORMED, GO_TEXT + "\n", GO_VERIFIER);
  }

  @Test
  void rejectsTooManySignatures() {
    String line = GO_NOTE.substring(GO_TEXT.length() + 1);
    String note = GO_TEXT + "\n" + line.repeat(SignedNote.MAX_SIGNATURES + 1);
    NoteVerificationException e =
        assertThrows(NoteVerificationException.class, () -> SignedNote.open(note, GO_VERIFIER));
    assertEquals("malformed note: more than 100 signatures", e.getMessage());
    String atCap = GO_TEXT + "\n" + line.repeat(SignedNote.MAX_SIGNATURES);
    assertEquals(GO_TEXT, assertOpens(atCap));
  }

  @Test
  void rejectsOversizedNote() {
    String big = "a".repeat(SignedNote.MAX_NOTE_BYTES) + "\n" + GO_NOTE;
    assertReason(Reason.MALFORMED, big, GO_VERIFIER);
    assertThrows(
        IllegalArgumentException.class,
        () ->
            SignedNote.sign(
                "a".repeat(SignedNote.MAX_NOTE_BYTES) + "\n",
                NoteSigner.fromPrivateKey(GO_PRIVATE_KEY)));
  }

  @Test
  void signRejectsTextWithoutFinalNewlineOrWithControls() {
    NoteSigner s = NoteSigner.fromPrivateKey(GO_PRIVATE_KEY);
    assertThrows(IllegalArgumentException.class, () -> SignedNote.sign("no newline", s));
    assertThrows(IllegalArgumentException.class, () -> SignedNote.sign("", s));
    assertThrows(IllegalArgumentException.class, () -> SignedNote.sign("tab\there\n", s));
    assertThrows(IllegalArgumentException.class, () -> SignedNote.sign("\ud800 lone\n", s));
  }

  @Test
  void keyParsingRejectsBadKeys() {
    assertThrows(IllegalArgumentException.class, () -> NoteVerifier.parse("PeterNeumann"));
    assertThrows(
        IllegalArgumentException.class,
        () -> NoteVerifier.parse(GO_VERIFIER_KEY.replace("c74f20a3", "c74f20a4")));
    assertThrows(
        IllegalArgumentException.class,
        () -> NoteVerifier.parse(GO_VERIFIER_KEY.replace("+ARpc", "+AhRpc")));
    assertThrows(
        IllegalArgumentException.class,
        () -> NoteVerifier.parse(GO_VERIFIER_KEY.replace("+AR", "+Ah")));
    assertThrows(
        IllegalArgumentException.class,
        () -> NoteVerifier.parse(GO_VERIFIER_KEY.replace("PeterNeumann", "Peter Neumann")));
    assertThrows(IllegalArgumentException.class, () -> NoteSigner.fromPrivateKey(GO_VERIFIER_KEY));
    assertThrows(
        IllegalArgumentException.class,
        () -> NoteSigner.fromPrivateKey(GO_PRIVATE_KEY.replace("c74f20a3", "00000000")));
    assertThrows(IllegalArgumentException.class, () -> NoteVerifier.ofEd25519("n", new byte[31]));
  }

  private static String assertOpens(String note) {
    try {
      return SignedNote.open(note, GO_VERIFIER);
    } catch (NoteVerificationException e) {
      throw new AssertionError("note did not open: " + e.getMessage(), e);
    }
  }

  private static void assertReason(Reason want, String note, NoteVerifier v) {
    NoteVerificationException e =
        assertThrows(NoteVerificationException.class, () -> SignedNote.open(note, v));
    assertEquals(want, e.reason(), e.getMessage());
  }
}
