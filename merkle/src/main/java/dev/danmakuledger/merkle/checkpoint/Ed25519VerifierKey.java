package dev.danmakuledger.merkle.checkpoint;

import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.crypto.signers.Ed25519Signer;

/**
 * What the Ed25519 verifier keys of C2SP signed-note share, whatever their signature type (0x01
 * note signatures, 0x04 tlog-cosignature): the key name, the 32-byte public key, its key ID {@code
 * SHA-256(name || 0x0A || type || pub)[:4]} and the vkey {@code <name>+<id hex8>+<base64(type ||
 * pub32)>}. Immutable and thread-safe.
 */
final class Ed25519VerifierKey {
  private final String name;
  private final byte type;
  private final byte[] publicKey;
  private final int keyHash;
  private final Ed25519PublicKeyParameters params;

  /**
   * @throws IllegalArgumentException if the name is invalid, the key is not 32 bytes or not a point
   *     of the curve
   */
  Ed25519VerifierKey(String name, byte type, byte[] publicKey) {
    this.name = Keys.checkName(name);
    if (publicKey.length != Keys.ED25519_KEY_SIZE) {
      throw new IllegalArgumentException(
          "public key: got " + publicKey.length + " bytes, want " + Keys.ED25519_KEY_SIZE);
    }
    this.type = type;
    this.publicKey = publicKey.clone();
    this.keyHash = Keys.keyHash(name, type, publicKey);
    try {
      this.params = new Ed25519PublicKeyParameters(this.publicKey, 0);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("public key: not a valid Ed25519 point", e);
    }
  }

  /**
   * Parses a vkey {@code name+hash+base64(type || pub32)}; {@code what} names the key in errors.
   *
   * @throws IllegalArgumentException if the syntax, signature type, key length or key ID is wrong
   */
  static Ed25519VerifierKey parse(String what, String vkey, byte type) {
    String[] parts = vkey.split("\\+", 3);
    if (parts.length != 3) {
      throw new IllegalArgumentException(
          what + " key: got " + parts.length + " '+'-separated parts, want name+hash+key");
    }
    byte[] key = Keys.parseKeyParts(what, parts[0], parts[1], parts[2], type);
    Ed25519VerifierKey v = new Ed25519VerifierKey(parts[0], type, key);
    if (Integer.parseUnsignedInt(parts[1], 16) != v.keyHash) {
      throw new IllegalArgumentException(
          what + " key hash: got " + parts[1] + ", want " + Keys.hashHex(v.keyHash));
    }
    return v;
  }

  String name() {
    return name;
  }

  int keyHash() {
    return keyHash;
  }

  byte[] publicKey() {
    return publicKey.clone();
  }

  /** The vkey {@code name+hash+base64(type || pub)}. */
  String vkey() {
    return name + "+" + Keys.hashHex(keyHash) + "+" + Keys.encodeKey(type, publicKey);
  }

  /** Whether {@code sig} is a valid 64-byte Ed25519 signature of {@code msg} under this key. */
  boolean verifies(byte[] msg, byte[] sig) {
    if (sig.length != Keys.ED25519_SIG_SIZE) {
      return false;
    }
    Ed25519Signer v = new Ed25519Signer();
    v.init(false, params);
    v.update(msg, 0, msg.length);
    return v.verifySignature(sig);
  }
}
