package dev.danmakuledger.server.http;

import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.server.LedgerException;
import io.javalin.http.Context;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * The operator credential (docs/security.md): {@code Authorization: Bearer <admin.token>}. It is
 * required on {@code /admin/*}, and on the public read endpoints it unlocks what anonymous callers
 * do not see (held and rejected content, their proofs). Compared in constant time.
 */
final class AdminToken {
  private static final String PREFIX = "Bearer ";

  private final byte[] token;

  AdminToken(String token) {
    this.token = token.getBytes(StandardCharsets.UTF_8);
  }

  /** True when the request carries the admin token. */
  boolean presentedBy(Context ctx) {
    String header = ctx.header("Authorization");
    return header != null
        && header.startsWith(PREFIX)
        && MessageDigest.isEqual(
            token, header.substring(PREFIX.length()).strip().getBytes(StandardCharsets.UTF_8));
  }

  /** Refuses the request with 401 unless it carries the admin token. */
  void require(Context ctx) {
    if (!presentedBy(ctx)) {
      throw new LedgerException(
          ErrorCode.UNAUTHENTICATED,
          "admin API: send Authorization: Bearer <contents of admin.token in the data directory>");
    }
  }
}
