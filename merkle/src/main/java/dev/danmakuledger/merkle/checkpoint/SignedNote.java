package dev.danmakuledger.merkle.checkpoint;

import static dev.danmakuledger.merkle.checkpoint.NoteVerificationException.Reason.BAD_SIGNATURE;
import static dev.danmakuledger.merkle.checkpoint.NoteVerificationException.Reason.MALFORMED;
import static dev.danmakuledger.merkle.checkpoint.NoteVerificationException.Reason.UNKNOWN_KEY;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.function.BiPredicate;
import java.util.function.Function;

/**
 * C2SP signed-note: a text ending in a newline, a blank line, then signature lines {@code — <name>
 * <base64(keyhash(4) || signature)>}. Opening follows Go {@code x/mod/sumdb/note.Open}: the whole
 * note is checked for size and characters, signatures are verified over the exact text bytes, and
 * only then is the text returned to the caller for parsing.
 */
public final class SignedNote {
  /** Largest note accepted, in UTF-8 bytes. */
  public static final int MAX_NOTE_BYTES = 1 << 20;

  /** Most signature lines accepted in one note. */
  public static final int MAX_SIGNATURES = 100;

  private static final String SIG_PREFIX = "\u2014 ";

  private SignedNote() {}

  /**
   * Signs {@code text} with each signer.
   *
   * @throws IllegalArgumentException if the text is empty, does not end in a newline, contains
   *     control characters other than newline, or exceeds {@link #MAX_NOTE_BYTES}
   */
  public static String sign(String text, NoteSigner... signers) {
    checkText(text);
    StringBuilder out = new StringBuilder(text).append('\n');
    for (NoteSigner s : signers) {
      out.append(signatureLine(text, s));
    }
    return out.toString();
  }

  /**
   * Adds {@code signer}'s signature to an existing note, replacing an earlier signature by the same
   * key. Existing signatures are kept but not verified.
   *
   * @throws IllegalArgumentException if the note is malformed
   */
  public static String addSignature(String note, NoteSigner signer) {
    return addSignatureWith(
        note,
        signer.name(),
        signer.keyHash(),
        text -> signer.sign(text.getBytes(StandardCharsets.UTF_8)));
  }

  /**
   * Adds the signature {@code sign(text)} by key {@code (name, keyHash)} to a note, replacing an
   * earlier signature by the same key; see {@link #addSignature}.
   */
  static String addSignatureWith(
      String note, String name, int keyHash, Function<String, byte[]> sign) {
    Parsed p;
    try {
      p = split(note);
    } catch (NoteVerificationException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
    StringBuilder out = new StringBuilder(p.text).append('\n');
    for (Sig s : p.sigs) {
      if (!(s.name.equals(name) && s.keyHash == keyHash)) {
        out.append(SIG_PREFIX).append(s.name).append(' ').append(s.base64).append('\n');
      }
    }
    out.append(signatureLine(name, keyHash, sign.apply(p.text)));
    return out.toString();
  }

  /**
   * Verifies {@code note} against {@code verifier} and returns its text. Signatures by other keys
   * are ignored; at least one signature line must carry the verifier's name and key hash, and every
   * such line must verify.
   *
   * @throws NoteVerificationException with reason MALFORMED for syntax errors, oversized notes or
   *     too many signatures; UNKNOWN_KEY if no signature is by the verifier's key; BAD_SIGNATURE if
   *     the verifier's signature does not verify
   */
  public static String open(String note, NoteVerifier verifier) throws NoteVerificationException {
    return openWith(note, verifier.name(), verifier.keyHash(), verifier::verify).text();
  }

  /** The text of an opened note and the first signature by the trusted key (without key ID). */
  record Opened(String text, byte[] signature) {}

  /**
   * Opens {@code note} with the key {@code (name, keyHash)}, checking each of its signatures with
   * {@code verify(textBytes, signature)}; see {@link #open(String, NoteVerifier)}.
   */
  static Opened openWith(String note, String name, int keyHash, BiPredicate<byte[], byte[]> verify)
      throws NoteVerificationException {
    Parsed p = split(note);
    byte[] msg = p.text.getBytes(StandardCharsets.UTF_8);
    byte[] first = null;
    List<String> hints = new ArrayList<>();
    for (Sig s : p.sigs) {
      if (!s.name.equals(name)) {
        continue;
      }
      if (s.keyHash != keyHash) {
        hints.add(Keys.hashHex(s.keyHash));
        continue;
      }
      if (!verify.test(msg, s.signature)) {
        throw new NoteVerificationException(
            BAD_SIGNATURE, "signature by " + name + " does not verify");
      }
      first = first == null ? s.signature : first;
    }
    if (first == null) {
      String why =
          hints.isEmpty()
              ? "no signature by " + name
              : "signature by "
                  + name
                  + " has key hash "
                  + hints
                  + ", want "
                  + Keys.hashHex(keyHash);
      throw new NoteVerificationException(UNKNOWN_KEY, why);
    }
    return new Opened(p.text, first);
  }

  private static String signatureLine(String text, NoteSigner s) {
    return signatureLine(s.name(), s.keyHash(), s.sign(text.getBytes(StandardCharsets.UTF_8)));
  }

  private static String signatureLine(String name, int keyHash, byte[] sig) {
    byte[] blob = ByteBuffer.allocate(4 + sig.length).putInt(keyHash).put(sig).array();
    return SIG_PREFIX + name + " " + Base64.getEncoder().encodeToString(blob) + "\n";
  }

  private static void checkText(String text) {
    if (text.isEmpty() || !text.endsWith("\n")) {
      throw new IllegalArgumentException("note text: want non-empty text ending in a newline");
    }
    if (!Notes.isValidText(text)) {
      throw new IllegalArgumentException("note text: contains control characters or bad UTF-16");
    }
    if (text.getBytes(StandardCharsets.UTF_8).length > MAX_NOTE_BYTES) {
      throw new IllegalArgumentException("note text: longer than " + MAX_NOTE_BYTES + " bytes");
    }
  }

  private record Sig(String name, int keyHash, byte[] signature, String base64) {}

  private record Parsed(String text, List<Sig> sigs) {}

  private static Parsed split(String note) throws NoteVerificationException {
    if (note.length() > MAX_NOTE_BYTES
        || note.getBytes(StandardCharsets.UTF_8).length > MAX_NOTE_BYTES) {
      throw malformed("note longer than " + MAX_NOTE_BYTES + " bytes");
    }
    if (!Notes.isValidText(note)) {
      throw malformed("note contains control characters or bad UTF-16");
    }
    int split = note.lastIndexOf("\n\n");
    if (split < 0) {
      throw malformed("no blank line before the signatures");
    }
    String text = note.substring(0, split + 1);
    String block = note.substring(split + 2);
    if (block.isEmpty() || !block.endsWith("\n")) {
      throw malformed("signature block must be non-empty and end in a newline");
    }
    List<Sig> sigs = new ArrayList<>();
    int start = 0;
    while (start < block.length()) {
      int nl = block.indexOf('\n', start);
      String line = block.substring(start, nl);
      start = nl + 1;
      if (sigs.size() >= MAX_SIGNATURES) {
        throw malformed("more than " + MAX_SIGNATURES + " signatures");
      }
      sigs.add(parseSignatureLine(line, sigs.size() + 1));
    }
    return new Parsed(text, sigs);
  }

  private static Sig parseSignatureLine(String line, int number) throws NoteVerificationException {
    if (!line.startsWith(SIG_PREFIX)) {
      throw malformed("signature line " + number + " does not start with \"\u2014 \"");
    }
    String rest = line.substring(SIG_PREFIX.length());
    int space = rest.indexOf(' ');
    if (space < 0) {
      throw malformed("signature line " + number + " has no space between name and signature");
    }
    String name = rest.substring(0, space);
    String b64 = rest.substring(space + 1);
    byte[] blob = Keys.decodeBase64(b64);
    if (!Keys.isValidName(name) || blob == null || blob.length < 5) {
      throw malformed("signature line " + number + " has a bad name or base64 signature");
    }
    int keyHash = ByteBuffer.wrap(blob).getInt();
    byte[] sig = new byte[blob.length - 4];
    System.arraycopy(blob, 4, sig, 0, sig.length);
    return new Sig(name, keyHash, sig, b64);
  }

  private static NoteVerificationException malformed(String message) {
    return new NoteVerificationException(MALFORMED, "malformed note: " + message);
  }
}
