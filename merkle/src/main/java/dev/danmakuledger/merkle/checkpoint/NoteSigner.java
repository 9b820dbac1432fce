package dev.danmakuledger.merkle.checkpoint;

import java.security.SecureRandom;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.crypto.signers.Ed25519Signer;

/**
 * An Ed25519 signed-note signer (C2SP signed-note). The private key is written as in Go {@code
 * x/mod/sumdb/note}: {@code PRIVATE+KEY+<name>+<hash hex8>+<base64(0x01 || seed32)>}. Immutable and
 * thread-safe.
 */
public final class NoteSigner {
  private static final String PRIVATE_PREFIX = "PRIVATE+KEY+";

  private final String name;
  private final Ed25519PrivateKeyParameters key;
  private final byte[] publicKey;
  private final int keyHash;

  private NoteSigner(String name, Ed25519PrivateKeyParameters key) {
    this.name = Keys.checkName(name);
    this.key = key;
    this.publicKey = key.generatePublicKey().getEncoded();
    this.keyHash = Keys.keyHash(name, publicKey);
  }

  /** Generates a new key named {@code name}. */
  public static NoteSigner generate(String name, SecureRandom random) {
    return new NoteSigner(name, new Ed25519PrivateKeyParameters(random));
  }

  /**
   * Parses a private key in {@code PRIVATE+KEY+name+hash+base64} form.
   *
   * @throws IllegalArgumentException if the syntax, algorithm, seed length or key hash is wrong
   */
  public static NoteSigner fromPrivateKey(String encoded) {
    if (!encoded.startsWith(PRIVATE_PREFIX)) {
      throw new IllegalArgumentException("private key: want prefix " + PRIVATE_PREFIX);
    }
    String[] parts = encoded.substring(PRIVATE_PREFIX.length()).split("\\+", 3);
    if (parts.length != 3) {
      throw new IllegalArgumentException(
          "private key: got " + parts.length + " '+'-separated parts after prefix, want 3");
    }
    byte[] seed = Keys.parseKeyParts("private", parts[0], parts[1], parts[2]);
    NoteSigner s = new NoteSigner(parts[0], new Ed25519PrivateKeyParameters(seed, 0));
    if (Integer.parseUnsignedInt(parts[1], 16) != s.keyHash) {
      throw new IllegalArgumentException(
          "private key hash: got " + parts[1] + ", want " + Keys.hashHex(s.keyHash));
    }
    return s;
  }

  /** Returns the private key in {@code PRIVATE+KEY+name+hash+base64} form; keep it secret. */
  public String privateKey() {
    return PRIVATE_PREFIX
        + name
        + "+"
        + Keys.hashHex(keyHash)
        + "+"
        + Keys.encodeKey(key.getEncoded());
  }

  /** Returns the matching verifier key in {@code name+hash+base64} form. */
  public String verifierKey() {
    return verifier().verifierKey();
  }

  /** Returns the matching verifier. */
  public NoteVerifier verifier() {
    return NoteVerifier.ofEd25519(name, publicKey);
  }

  public String name() {
    return name;
  }

  public byte[] publicKey() {
    return publicKey.clone();
  }

  public int keyHash() {
    return keyHash;
  }

  /** Returns the 64-byte Ed25519 signature of {@code msg}. */
  public byte[] sign(byte[] msg) {
    Ed25519Signer s = new Ed25519Signer();
    s.init(true, key);
    s.update(msg, 0, msg.length);
    return s.generateSignature();
  }

  @Override
  public String toString() {
    return "NoteSigner[" + verifierKey() + "]";
  }
}
