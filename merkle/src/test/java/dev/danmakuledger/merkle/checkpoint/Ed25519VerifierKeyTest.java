package dev.danmakuledger.merkle.checkpoint;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The key parts both verifier kinds share, and the wording each kind gives its errors. */
class Ed25519VerifierKeyTest {
  /** C2SP signed-note test vector (type 0x01) and a tlog-cosignature key (type 0x04). */
  private static final String NOTE_VKEY =
      "TEST+7997405c+AQcC+FTVKf0jlTdHDY3rbevmnKxxPjigCXlVtGe6RIr6";

  private static final String COSIGNER_VKEY =
      "remora.n621.de+da77ade7+BOvN63jn/bLvkieywe8R6UYAtVtNbZpXh34x7onlmtw2";

  @Test
  void parsedKeyWritesTheSameVkeyAndKeepsItsPartsPrivate() {
    Ed25519VerifierKey note = Ed25519VerifierKey.parse("verifier", NOTE_VKEY, Keys.ALG_ED25519);
    assertEquals(NOTE_VKEY, note.vkey());
    assertEquals("TEST", note.name());
    assertEquals(0x7997405c, note.keyHash());
    byte[] pub = note.publicKey();
    Arrays.fill(pub, (byte) 0);
    assertNotEquals(0, note.publicKey()[0], "publicKey() hands out a copy");
    Ed25519VerifierKey cosigner =
        Ed25519VerifierKey.parse("cosigner", COSIGNER_VKEY, Keys.ALG_COSIGNATURE_V1);
    assertEquals(COSIGNER_VKEY, cosigner.vkey());
  }

  @Test
  void sameKeyUnderTheOtherTypeHasAnotherKeyId() {
    Ed25519VerifierKey note = Ed25519VerifierKey.parse("verifier", NOTE_VKEY, Keys.ALG_ED25519);
    Ed25519VerifierKey asCosigner =
        new Ed25519VerifierKey(note.name(), Keys.ALG_COSIGNATURE_V1, note.publicKey());
    assertArrayEquals(note.publicKey(), asCosigner.publicKey());
    assertNotEquals(note.keyHash(), asCosigner.keyHash());
    assertTrue(asCosigner.vkey().contains("+B"), asCosigner.vkey());
  }

  @Test
  void errorsNameTheKindOfKey() {
    IllegalArgumentException parts =
        assertThrows(
            IllegalArgumentException.class, () -> CosignatureVerifier.parse("remora.n621.de"));
    assertEquals("cosigner key: got 1 '+'-separated parts, want name+hash+key", parts.getMessage());
    IllegalArgumentException hash =
        assertThrows(
            IllegalArgumentException.class,
            () -> NoteVerifier.parse(NOTE_VKEY.replace("7997405c", "7997405d")));
    assertEquals("verifier key hash: got 7997405d, want 7997405c", hash.getMessage());
    IllegalArgumentException type =
        assertThrows(IllegalArgumentException.class, () -> NoteVerifier.parse(COSIGNER_VKEY));
    assertTrue(type.getMessage().startsWith("verifier key: want base64"), type.getMessage());
  }

  @Test
  void refusesShortSignaturesAndKeys() {
    Ed25519VerifierKey note = Ed25519VerifierKey.parse("verifier", NOTE_VKEY, Keys.ALG_ED25519);
    assertEquals(false, note.verifies(new byte[] {1}, new byte[63]));
    assertEquals(false, note.verifies(new byte[] {1}, new byte[65]));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> new Ed25519VerifierKey("TEST", Keys.ALG_ED25519, new byte[31]));
    assertEquals("public key: got 31 bytes, want 32", e.getMessage());
  }
}
