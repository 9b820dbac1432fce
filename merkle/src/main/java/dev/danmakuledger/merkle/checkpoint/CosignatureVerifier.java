package dev.danmakuledger.merkle.checkpoint;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.crypto.signers.Ed25519Signer;

/**
 * A C2SP tlog-cosignature {@code cosignature/v1} verifier: an Ed25519 public key whose note key ID
 * uses signature type 0x04, written as the vkey {@code <name>+<id hex8>+<base64(0x04 || pub32)>}.
 * The same Ed25519 key used for plain 0x01 note signatures has a different key ID here, so a
 * verifier of one type never accepts a signature of the other. Immutable and thread-safe.
 */
public final class CosignatureVerifier {
  static final int TIMESTAMP_SIZE = 8;
  static final int SIGNATURE_SIZE = TIMESTAMP_SIZE + Keys.ED25519_SIG_SIZE;

  private final String name;
  private final byte[] publicKey;
  private final int keyHash;
  private final Ed25519PublicKeyParameters params;

  private CosignatureVerifier(String name, byte[] publicKey) {
    this.name = Keys.checkName(name);
    if (publicKey.length != Keys.ED25519_KEY_SIZE) {
      throw new IllegalArgumentException(
          "public key: got " + publicKey.length + " bytes, want " + Keys.ED25519_KEY_SIZE);
    }
    this.publicKey = publicKey.clone();
    this.keyHash = Keys.keyHash(name, Keys.ALG_COSIGNATURE_V1, publicKey);
    try {
      this.params = new Ed25519PublicKeyParameters(this.publicKey, 0);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("public key: not a valid Ed25519 point", e);
    }
  }

  /**
   * Parses a type 0x04 vkey {@code name+hash+base64(0x04 || pub32)}.
   *
   * @throws IllegalArgumentException if the syntax, signature type, key length or key ID is wrong
   */
  public static CosignatureVerifier parse(String vkey) {
    String[] parts = vkey.split("\\+", 3);
    if (parts.length != 3) {
      throw new IllegalArgumentException(
          "cosigner key: got " + parts.length + " '+'-separated parts, want name+hash+key");
    }
    byte[] key =
        Keys.parseKeyParts("cosigner", parts[0], parts[1], parts[2], Keys.ALG_COSIGNATURE_V1);
    CosignatureVerifier v = new CosignatureVerifier(parts[0], key);
    if (Integer.parseUnsignedInt(parts[1], 16) != v.keyHash) {
      throw new IllegalArgumentException(
          "cosigner key hash: got " + parts[1] + ", want " + Keys.hashHex(v.keyHash));
    }
    return v;
  }

  /** Returns the cosignature verifier for an Ed25519 public key. */
  public static CosignatureVerifier ofEd25519(String name, byte[] publicKey32) {
    return new CosignatureVerifier(name, publicKey32);
  }

  public String name() {
    return name;
  }

  /** Returns the key ID, {@code SHA-256(name || 0x0A || 0x04 || pub)[:4]}. */
  public int keyHash() {
    return keyHash;
  }

  public byte[] publicKey() {
    return publicKey.clone();
  }

  /** Returns the vkey {@code name+hash+base64(0x04 || pub)}. */
  public String verifierKey() {
    return name
        + "+"
        + Keys.hashHex(keyHash)
        + "+"
        + Keys.encodeKey(Keys.ALG_COSIGNATURE_V1, publicKey);
  }

  /**
   * Returns whether {@code sig} is a {@code timestamped_signature} (8-byte big-endian timestamp of
   * at most 2^63 - 1, then 64 Ed25519 bytes) over {@link Cosignatures#message} of {@code text}.
   */
  boolean verify(byte[] text, byte[] sig) {
    if (sig.length != SIGNATURE_SIZE) {
      return false;
    }
    long timestamp = ByteBuffer.wrap(sig).getLong();
    if (timestamp < 0) {
      return false;
    }
    byte[] msg =
        Cosignatures.message(new String(text, StandardCharsets.UTF_8), timestamp)
            .getBytes(StandardCharsets.UTF_8);
    Ed25519Signer v = new Ed25519Signer();
    v.init(false, params);
    v.update(msg, 0, msg.length);
    return v.verifySignature(Arrays.copyOfRange(sig, TIMESTAMP_SIZE, SIGNATURE_SIZE));
  }

  @Override
  public String toString() {
    return verifierKey();
  }
}
