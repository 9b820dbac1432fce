package dev.danmakuledger.merkle.checkpoint;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Clock;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.crypto.signers.Ed25519Signer;

/**
 * A C2SP tlog-cosignature {@code cosignature/v1} signer (signature type 0x04): it adds to a
 * checkpoint note a signed-note line whose signature is a {@code timestamped_signature}, the 8-byte
 * big-endian POSIX time followed by the Ed25519 signature of {@code cosignature/v1\ntime <t>\n} and
 * the checkpoint body. The private key is written {@code PRIVATE+KEY+<name>+<id hex8>+<base64(0x04
 * || seed32)>}. Immutable and thread-safe.
 */
public final class CosignatureSigner {
  private static final String PRIVATE_PREFIX = "PRIVATE+KEY+";

  private final String name;
  private final Ed25519PrivateKeyParameters key;
  private final CosignatureVerifier verifier;

  private CosignatureSigner(String name, Ed25519PrivateKeyParameters key) {
    this.name = Keys.checkName(name);
    this.key = key;
    this.verifier = CosignatureVerifier.ofEd25519(name, key.generatePublicKey().getEncoded());
  }

  /** Generates a new cosigner key named {@code name}. */
  public static CosignatureSigner generate(String name, SecureRandom random) {
    return new CosignatureSigner(name, new Ed25519PrivateKeyParameters(random));
  }

  /**
   * Parses {@code PRIVATE+KEY+name+hash+base64(0x04 || seed32)}.
   *
   * @throws IllegalArgumentException if the syntax, type, seed length or key ID is wrong
   */
  public static CosignatureSigner fromPrivateKey(String encoded) {
    if (!encoded.startsWith(PRIVATE_PREFIX)) {
      throw new IllegalArgumentException("cosigner private key: want prefix " + PRIVATE_PREFIX);
    }
    String[] parts = encoded.substring(PRIVATE_PREFIX.length()).split("\\+", 3);
    if (parts.length != 3) {
      throw new IllegalArgumentException(
          "cosigner private key: got " + parts.length + " '+'-separated parts, want 3");
    }
    byte[] seed =
        Keys.parseKeyParts(
            "cosigner private", parts[0], parts[1], parts[2], Keys.ALG_COSIGNATURE_V1);
    CosignatureSigner s = new CosignatureSigner(parts[0], new Ed25519PrivateKeyParameters(seed, 0));
    if (Integer.parseUnsignedInt(parts[1], 16) != s.keyHash()) {
      throw new IllegalArgumentException(
          "cosigner private key hash: got " + parts[1] + ", want " + Keys.hashHex(s.keyHash()));
    }
    return s;
  }

  /** Returns the private key in {@code PRIVATE+KEY+name+hash+base64} form; keep it secret. */
  public String privateKey() {
    return PRIVATE_PREFIX
        + name
        + "+"
        + Keys.hashHex(keyHash())
        + "+"
        + Keys.encodeKey(Keys.ALG_COSIGNATURE_V1, key.getEncoded());
  }

  public String name() {
    return name;
  }

  public int keyHash() {
    return verifier.keyHash();
  }

  public CosignatureVerifier verifier() {
    return verifier;
  }

  /** Returns the type 0x04 vkey to publish. */
  public String verifierKey() {
    return verifier.verifierKey();
  }

  /**
   * Adds this key's cosignature, timestamped with {@code clock}'s current second, to a checkpoint
   * note (replacing an earlier cosignature by this key). Existing signatures are kept but not
   * verified: verify the checkpoint (and its consistency) before cosigning it.
   *
   * @throws IllegalArgumentException if the note is malformed or its text is not a checkpoint
   */
  public String cosign(String note, Clock clock) {
    return cosign(note, clock.instant().getEpochSecond());
  }

  /**
   * Adds this key's cosignature with the given POSIX timestamp; see {@link #cosign(String, Clock)}.
   *
   * @throws IllegalArgumentException if the timestamp is negative, the note is malformed or its
   *     text is not a checkpoint
   */
  public String cosign(String note, long timestamp) {
    if (timestamp < 0) {
      throw new IllegalArgumentException("timestamp: got " + timestamp + ", want >= 0");
    }
    return SignedNote.addSignatureWith(
        note, name, keyHash(), text -> timestampedSignature(checkpointText(text), timestamp));
  }

  private byte[] timestampedSignature(String text, long timestamp) {
    byte[] msg = Cosignatures.message(text, timestamp).getBytes(StandardCharsets.UTF_8);
    Ed25519Signer s = new Ed25519Signer();
    s.init(true, key);
    s.update(msg, 0, msg.length);
    return ByteBuffer.allocate(CosignatureVerifier.SIGNATURE_SIZE)
        .putLong(timestamp)
        .put(s.generateSignature())
        .array();
  }

  private static String checkpointText(String text) {
    Checkpoint.parse(text);
    return text;
  }

  @Override
  public String toString() {
    return "CosignatureSigner[" + verifierKey() + "]";
  }
}
