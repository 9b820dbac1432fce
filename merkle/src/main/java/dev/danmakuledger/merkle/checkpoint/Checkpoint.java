package dev.danmakuledger.merkle.checkpoint;

import dev.danmakuledger.merkle.hash.Rfc6962;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;

/**
 * A C2SP tlog-checkpoint body: the log's origin line, the tree size in decimal, and the base64 root
 * hash, each ending in a newline. Extension lines are not produced and not accepted.
 *
 * @param origin the log's unique identity: non-empty, no control characters or line breaks
 * @param size the number of leaves, {@code >= 0}
 * @param root the RFC 6962 root hash of the first {@code size} leaves, 32 bytes
 */
public record Checkpoint(String origin, long size, byte[] root) {
  private static final java.util.regex.Pattern DECIMAL =
      java.util.regex.Pattern.compile("0|[1-9][0-9]{0,18}");

  /** Validates the fields and copies the root. */
  public Checkpoint {
    if (origin == null
        || origin.isEmpty()
        || origin.indexOf('\n') >= 0
        || !Notes.isValidText(origin)
        || !origin.strip().equals(origin)) {
      throw new IllegalArgumentException(
          "origin: got \""
              + origin
              + "\", want non-empty text without control characters or outer spaces");
    }
    if (size < 0) {
      throw new IllegalArgumentException("size: got " + size + ", want >= 0");
    }
    Rfc6962.checkHash("root", root);
    root = root.clone();
  }

  /** Returns a copy of the root hash. */
  @Override
  public byte[] root() {
    return root.clone();
  }

  /** Returns the note text {@code origin\nsize\nbase64(root)\n}. */
  public String body() {
    return origin + "\n" + size + "\n" + Base64.getEncoder().encodeToString(root) + "\n";
  }

  /**
   * Parses a checkpoint body. Callers holding a signed note should use {@link Checkpoints#open} so
   * the signature is checked before the body is read.
   *
   * @throws IllegalArgumentException if the body is not exactly three valid lines
   */
  public static Checkpoint parse(String body) {
    if (!body.endsWith("\n")) {
      throw new IllegalArgumentException("checkpoint: want text ending in a newline");
    }
    String[] lines = body.substring(0, body.length() - 1).split("\n", -1);
    if (lines.length != 3) {
      throw new IllegalArgumentException(
          "checkpoint: got " + lines.length + " lines, want 3 (origin, size, root)");
    }
    if (!DECIMAL.matcher(lines[1]).matches()) {
      throw new IllegalArgumentException(
          "checkpoint size: got \"" + lines[1] + "\", want a decimal without leading zeros");
    }
    long size;
    try {
      size = Long.parseLong(lines[1]);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("checkpoint size: got " + lines[1] + ", too large", e);
    }
    byte[] root = Keys.decodeBase64(lines[2]);
    if (root == null || root.length != Rfc6962.HASH_SIZE) {
      throw new IllegalArgumentException(
          "checkpoint root: got \"" + lines[2] + "\", want base64 of 32 bytes");
    }
    return new Checkpoint(lines[0], size, root);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Checkpoint c
        && c.origin.equals(origin)
        && c.size == size
        && Arrays.equals(c.root, root);
  }

  @Override
  public int hashCode() {
    return (origin.hashCode() * 31 + Long.hashCode(size)) * 31 + Arrays.hashCode(root);
  }

  @Override
  public String toString() {
    return "Checkpoint[" + origin + ", " + size + ", " + HexFormat.of().formatHex(root) + "]";
  }
}
