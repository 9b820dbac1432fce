package dev.danmakuledger.merkle.checkpoint;

/**
 * An Ed25519 signed-note verifier key (C2SP signed-note, Go {@code x/mod/sumdb/note}), written
 * {@code <name>+<hash hex8>+<base64(0x01 || pub32)>}. Immutable and thread-safe.
 */
public final class NoteVerifier {
  private final Ed25519VerifierKey key;

  private NoteVerifier(Ed25519VerifierKey key) {
    this.key = key;
  }

  /**
   * Parses a verifier key {@code name+hash+base64}.
   *
   * @throws IllegalArgumentException if the syntax, algorithm, key length or key hash is wrong
   */
  public static NoteVerifier parse(String verifierKey) {
    return new NoteVerifier(Ed25519VerifierKey.parse("verifier", verifierKey, Keys.ALG_ED25519));
  }

  /**
   * Returns the verifier for an Ed25519 public key.
   *
   * @throws IllegalArgumentException if the name is invalid or the key is not 32 bytes
   */
  public static NoteVerifier ofEd25519(String name, byte[] publicKey32) {
    return new NoteVerifier(new Ed25519VerifierKey(name, Keys.ALG_ED25519, publicKey32));
  }

  public String name() {
    return key.name();
  }

  public int keyHash() {
    return key.keyHash();
  }

  public byte[] publicKey() {
    return key.publicKey();
  }

  /** Returns the key in {@code name+hash+base64} form. */
  public String verifierKey() {
    return key.vkey();
  }

  /** Returns whether {@code sig} is a valid 64-byte Ed25519 signature of {@code msg}. */
  public boolean verify(byte[] msg, byte[] sig) {
    return key.verifies(msg, sig);
  }

  @Override
  public String toString() {
    return verifierKey();
  }
}
