package dev.danmakuledger.bench.e2e;

import java.security.SecureRandom;
import java.util.HexFormat;

/** Device ids and rooms unique to one run, so runs can share a Redis or database. */
final class Names {
  private static final SecureRandom RANDOM = new SecureRandom();

  private Names() {}

  static String unique(String prefix) {
    byte[] b = new byte[4];
    RANDOM.nextBytes(b);
    return prefix + "-" + HexFormat.of().formatHex(b);
  }
}
