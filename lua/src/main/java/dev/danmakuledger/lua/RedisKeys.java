package dev.danmakuledger.lua;

import io.lettuce.core.cluster.SlotHash;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.zip.CRC32;

/**
 * The key layout (contract "lua", docs/lua-scripts.md "Key layout"): every room belongs to one of
 * {@value #BUCKETS} buckets, and a bucket's keys carry its hash tag {@code {b:<n>}}, so one admit
 * of any number of a bucket's rooms touches one Redis Cluster slot. The buckets' tags fall in equal
 * parts of the slot range, so on a cluster with evenly split slots they spread over the nodes. Room
 * names are escaped so that no room can forge another room's fields: bytes outside {@code
 * [A-Za-z0-9_.-]} (including {@code :} and {@code %}) become {@code %XX} of their UTF-8 encoding,
 * which leaves every protocol-valid room name unchanged.
 */
public final class RedisKeys {
  static final int MAX_NAME_LENGTH = 256;

  /** How many buckets the rooms are spread over. */
  public static final int BUCKETS = 64;

  private static final List<String> TAGS = spreadTags("b", BUCKETS);

  private RedisKeys() {}

  /**
   * {@code n} hash tags that spread over a Redis Cluster's slots: the i-th is the first {@code
   * {<stem>:k}} (k = 0, 1, …) whose slot lies in the i-th of {@code n} equal parts of the 16,384
   * slots, so that on a cluster with evenly split slots keys under them spread over the nodes.
   *
   * @param n 1..1024
   */
  public static List<String> spreadTags(String stem, int n) {
    if (n < 1 || n > 1024) {
      throw new IllegalArgumentException("tags: got " + n + ", want 1..1024");
    }
    String[] found = new String[n];
    int missing = n;
    for (int k = 0; missing > 0; k++) {
      String tag = "{" + stem + ":" + k + "}";
      int part = (int) ((long) SlotHash.getSlot(tag) * n / SlotHash.SLOT_COUNT);
      if (found[part] == null) {
        found[part] = tag;
        missing--;
      }
    }
    return List.of(found);
  }

  /** The bucket of {@code room}: CRC-32 of its escaped name's bytes, modulo {@value #BUCKETS}. */
  public static int bucket(String room) {
    CRC32 crc = new CRC32();
    crc.update(field(room).getBytes(StandardCharsets.US_ASCII));
    return (int) (crc.getValue() % BUCKETS);
  }

  /** The hash tag of {@code room}'s bucket, {@code {b:<n>}}. */
  static String tag(String room) {
    return TAGS.get(bucket(room));
  }

  /** The hash of the counters of {@code room}'s bucket, a field per room ({@link #field}). */
  public static String counters(String room) {
    return tag(room) + ":seq";
  }

  /**
   * The hash of the dedupe entries of {@code room}'s bucket admitted in window number {@code
   * window} (Unix seconds divided by the TTL), a field per room and idempotency key ({@link
   * #entry}).
   */
  public static String window(String room, long window) {
    return tag(room) + ":w:" + window;
  }

  /** {@code room}'s field in its bucket's counters: its escaped name. */
  public static String field(String room) {
    return escape("room", room);
  }

  /** The field of {@code room}'s entry of {@code idempotencyKey} in its bucket's windows. */
  public static String entry(String room, String idempotencyKey) {
    return field(room) + ":" + idempotencyKey;
  }

  static String leaseOwners(String group) {
    return "{dl:lease:" + escape("lease group", group) + "}:owners";
  }

  static String leaseExpiry(String group) {
    return "{dl:lease:" + escape("lease group", group) + "}:expiry";
  }

  static String escape(String what, String name) {
    if (name == null || name.isEmpty() || name.length() > MAX_NAME_LENGTH) {
      throw new IllegalArgumentException(
          what
              + ": got "
              + (name == null ? "null" : "length " + name.length())
              + ", want 1.."
              + MAX_NAME_LENGTH
              + " chars");
    }
    StringBuilder out = new StringBuilder(name.length());
    for (byte b : name.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      if ((c >= 'A' && c <= 'Z')
          || (c >= 'a' && c <= 'z')
          || (c >= '0' && c <= '9')
          || c == '_'
          || c == '.'
          || c == '-') {
        out.append((char) c);
      } else {
        out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)));
        out.append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
      }
    }
    return out.toString();
  }
}
