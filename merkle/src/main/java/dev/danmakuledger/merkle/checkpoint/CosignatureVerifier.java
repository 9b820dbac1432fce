package dev.danmakuledger.merkle.checkpoint;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A C2SP tlog-cosignature {@code cosignature/v1} verifier: an Ed25519 public key whose note key ID
 * uses signature type 0x04, written as the vkey {@code <name>+<id hex8>+<base64(0x04 || pub32)>}.
 * The same Ed25519 key used for plain 0x01 note signatures has a different key ID here, so a
 * verifier of one type never accepts a signature of the other. Immutable and thread-safe.
 */
public final class CosignatureVerifier {
  static final int TIMESTAMP_SIZE = 8;
  static final int SIGNATURE_SIZE = TIMESTAMP_SIZE + Keys.ED25519_SIG_SIZE;

  private final Ed25519VerifierKey key;

  private CosignatureVerifier(Ed25519VerifierKey key) {
    this.key = key;
  }

  /**
   * Parses a type 0x04 vkey {@code name+hash+base64(0x04 || pub32)}.
   *
   * @throws IllegalArgumentException if the syntax, signature type, key length or key ID is wrong
   */
  public static CosignatureVerifier parse(String vkey) {
    return new CosignatureVerifier(
        Ed25519VerifierKey.parse("cosigner", vkey, Keys.ALG_COSIGNATURE_V1));
  }

  /** Returns the cosignature verifier for an Ed25519 public key. */
  public static CosignatureVerifier ofEd25519(String name, byte[] publicKey32) {
    return new CosignatureVerifier(
        new Ed25519VerifierKey(name, Keys.ALG_COSIGNATURE_V1, publicKey32));
  }

  public String name() {
    return key.name();
  }

  /** Returns the key ID, {@code SHA-256(name || 0x0A || 0x04 || pub)[:4]}. */
  public int keyHash() {
    return key.keyHash();
  }

  public byte[] publicKey() {
    return key.publicKey();
  }

  /** Returns the vkey {@code name+hash+base64(0x04 || pub)}. */
  public String verifierKey() {
    return key.vkey();
  }

  /**
   * Returns the key's ID {@code name+hash} (the note key ID, as its vkey begins): what names the
   * key without its public key.
   */
  public String keyId() {
    String vkey = verifierKey();
    return vkey.substring(0, vkey.lastIndexOf('+'));
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
    return key.verifies(msg, Arrays.copyOfRange(sig, TIMESTAMP_SIZE, SIGNATURE_SIZE));
  }

  @Override
  public String toString() {
    return verifierKey();
  }
}
