package dev.danmakuledger.merkle.checkpoint;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * Key naming and hashing shared by signers and verifiers (C2SP signed-note, Go x/mod/sumdb/note).
 * The key ID is {@code SHA-256(name || 0x0A || type || public key)[:4]}, where the signature type
 * is 0x01 for plain Ed25519 note signatures and 0x04 for C2SP tlog-cosignature {@code
 * cosignature/v1}.
 */
final class Keys {
  static final byte ALG_ED25519 = 1;
  static final byte ALG_COSIGNATURE_V1 = 4;
  static final int ED25519_KEY_SIZE = 32;
  static final int ED25519_SIG_SIZE = 64;

  private Keys() {}

  /** First four bytes, big-endian, of SHA-256(name || "\n" || 0x01 || publicKey). */
  static int keyHash(String name, byte[] publicKey) {
    return keyHash(name, ALG_ED25519, publicKey);
  }

  /** First four bytes, big-endian, of SHA-256(name || "\n" || type || publicKey). */
  static int keyHash(String name, byte type, byte[] publicKey) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      md.update(name.getBytes(StandardCharsets.UTF_8));
      md.update((byte) '\n');
      md.update(type);
      md.update(publicKey);
      return ByteBuffer.wrap(md.digest()).getInt();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every Java platform", e);
    }
  }

  /** A key name is non-empty and has no whitespace, control characters or '+'. */
  static boolean isValidName(String name) {
    if (name == null || name.isEmpty() || name.indexOf('+') >= 0 || !Notes.isValidText(name)) {
      return false;
    }
    return name.codePoints()
        .noneMatch(cp -> Character.isWhitespace(cp) || Character.isSpaceChar(cp));
  }

  static String checkName(String name) {
    if (!isValidName(name)) {
      throw new IllegalArgumentException(
          "key name: got \"" + name + "\", want non-empty, no spaces, no '+'");
    }
    return name;
  }

  static String hashHex(int keyHash) {
    return String.format("%08x", keyHash);
  }

  /** Parses "{@code hash hex8+base64(0x01 || key32)}"; the caller checks the hash. */
  static byte[] parseKeyParts(String what, String name, String hashHex, String keyB64) {
    return parseKeyParts(what, name, hashHex, keyB64, ALG_ED25519);
  }

  /** Parses "{@code hash hex8+base64(type || key32)}"; the caller checks the hash. */
  static byte[] parseKeyParts(String what, String name, String hashHex, String keyB64, byte type) {
    checkName(name);
    if (!hashHex.matches("[0-9a-fA-F]{8}")) {
      throw new IllegalArgumentException(
          what + " key hash: got \"" + hashHex + "\", want 8 hex digits");
    }
    byte[] raw = decodeBase64(keyB64);
    if (raw == null || raw.length != 1 + ED25519_KEY_SIZE || raw[0] != type) {
      throw new IllegalArgumentException(
          what
              + " key: want base64 of signature type 0x0"
              + type
              + " followed by "
              + ED25519_KEY_SIZE
              + " bytes"
              + (raw != null && raw.length > 0
                  ? ", got type 0x" + String.format("%02x", raw[0])
                  : ""));
    }
    byte[] key = new byte[ED25519_KEY_SIZE];
    System.arraycopy(raw, 1, key, 0, ED25519_KEY_SIZE);
    return key;
  }

  static String encodeKey(byte[] key) {
    return encodeKey(ALG_ED25519, key);
  }

  static String encodeKey(byte type, byte[] key) {
    byte[] raw = new byte[1 + key.length];
    raw[0] = type;
    System.arraycopy(key, 0, raw, 1, key.length);
    return Base64.getEncoder().encodeToString(raw);
  }

  /** Strict standard base64: padded and canonical, or null. */
  static byte[] decodeBase64(String s) {
    try {
      byte[] out = Base64.getDecoder().decode(s);
      return Base64.getEncoder().encodeToString(out).equals(s) ? out : null;
    } catch (IllegalArgumentException e) {
      return null;
    }
  }
}
