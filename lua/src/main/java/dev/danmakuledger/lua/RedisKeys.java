package dev.danmakuledger.lua;

import java.nio.charset.StandardCharsets;

/**
 * The key layout (contract "lua", docs/architecture.md §7): every key of a room carries the hash
 * tag {@code {r:<room>}} so one admit touches one Redis Cluster slot. Room names are escaped so
 * that no room can forge another room's keys: bytes outside {@code [A-Za-z0-9_.-]} (including
 * {@code {}}, {@code }}, {@code :} and {@code %}) become {@code %XX} of their UTF-8 encoding, which
 * leaves every protocol-valid room name unchanged.
 */
final class RedisKeys {
  static final int MAX_NAME_LENGTH = 256;

  private RedisKeys() {}

  static String counter(String room) {
    return "{r:" + escape("room", room) + "}:seq";
  }

  /**
   * The hash of {@code room}'s dedupe entries admitted in window number {@code window} (Unix
   * seconds divided by the TTL), a field per idempotency key.
   */
  static String window(String room, long window) {
    return "{r:" + escape("room", room) + "}:w:" + window;
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
