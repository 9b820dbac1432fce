package dev.danmakuledger.merkle.checkpoint;

import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.crypto.signers.Ed25519Signer;

/**
 * An Ed25519 signed-note verifier key (C2SP signed-note, Go {@code x/mod/sumdb/note}), written
 * {@code <name>+<hash hex8>+<base64(0x01 || pub32)>}. Immutable and thread-safe.
 */
public final class NoteVerifier {
  private final String name;
  private final byte[] publicKey;
  private final int keyHash;
  private final Ed25519PublicKeyParameters params;

  private NoteVerifier(String name, byte[] publicKey) {
    this.name = Keys.checkName(name);
    if (publicKey.length != Keys.ED25519_KEY_SIZE) {
      throw new IllegalArgumentException(
          "public key: got " + publicKey.length + " bytes, want " + Keys.ED25519_KEY_SIZE);
    }
    this.publicKey = publicKey.clone();
    this.keyHash = Keys.keyHash(name, publicKey);
    try {
      this.params = new Ed25519PublicKeyParameters(this.publicKey, 0);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("public key: not a valid Ed25519 point", e);
    }
  }

  /**
   * Parses a verifier key {@code name+hash+base64}.
   *
   * @throws IllegalArgumentException if the syntax, algorithm, key length or key hash is wrong
   */
  public static NoteVerifier parse(String verifierKey) {
    String[] parts = verifierKey.split("\\+", 3);
    if (parts.length != 3) {
      throw new IllegalArgumentException(
          "verifier key: got " + parts.length + " '+'-separated parts, want name+hash+key");
    }
    byte[] key = Keys.parseKeyParts("verifier", parts[0], parts[1], parts[2]);
    NoteVerifier v = new NoteVerifier(parts[0], key);
    int claimed = Integer.parseUnsignedInt(parts[1], 16);
    if (claimed != v.keyHash) {
      throw new IllegalArgumentException(
          "verifier key hash: got " + parts[1] + ", want " + Keys.hashHex(v.keyHash));
    }
    return v;
  }

  /**
   * Returns the verifier for an Ed25519 public key.
   *
   * @throws IllegalArgumentException if the name is invalid or the key is not 32 bytes
   */
  public static NoteVerifier ofEd25519(String name, byte[] publicKey32) {
    return new NoteVerifier(name, publicKey32);
  }

  public String name() {
    return name;
  }

  public int keyHash() {
    return keyHash;
  }

  public byte[] publicKey() {
    return publicKey.clone();
  }

  /** Returns the key in {@code name+hash+base64} form. */
  public String verifierKey() {
    return name + "+" + Keys.hashHex(keyHash) + "+" + Keys.encodeKey(publicKey);
  }

  /** Returns whether {@code sig} is a valid 64-byte Ed25519 signature of {@code msg}. */
  public boolean verify(byte[] msg, byte[] sig) {
    if (sig.length != Keys.ED25519_SIG_SIZE) {
      return false;
    }
    Ed25519Signer v = new Ed25519Signer();
    v.init(false, params);
    v.update(msg, 0, msg.length);
    return v.verifySignature(sig);
  }

  @Override
  public String toString() {
    return verifierKey();
  }
}
