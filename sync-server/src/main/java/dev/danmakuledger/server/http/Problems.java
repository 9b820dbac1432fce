package dev.danmakuledger.server.http;

import dev.danmakuledger.lua.LuaRedisException;
import dev.danmakuledger.lua.RedisUnavailableException;
import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.protocol.error.Problem;
import dev.danmakuledger.server.LedgerException;
import dev.danmakuledger.server.storage.DamagedRowException;
import dev.danmakuledger.server.storage.StorageUnavailableException;
import io.javalin.http.HttpResponseException;
import io.lettuce.core.RedisException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Domain errors to HTTP, in one place: every failure leaves as an RFC 9457 problem with a stable
 * code; outages are 503 with {@code Retry-After}, rate limits 429 with the seconds until the limit
 * resets (RFC 9110 §10.2.3).
 */
final class Problems {
  private static final Logger log = LoggerFactory.getLogger(Problems.class);

  /** Seconds a client should wait after a 503. */
  static final int RETRY_AFTER_SECONDS = 2;

  private Problems() {}

  /** The problem for an exception, with the {@code Retry-After} seconds to send, or null. */
  record Mapped(Problem problem, Integer retryAfterSeconds) {
    Mapped(Problem problem, boolean retryAfter) {
      this(problem, retryAfter ? RETRY_AFTER_SECONDS : null);
    }
  }

  static Mapped map(Exception e, String path, String traceId) {
    if (e instanceof LedgerException le) {
      Problem p = le.problem().withInstance(path);
      if ((le.code() == ErrorCode.RATE_LIMITED
              || le.code() == ErrorCode.NOT_INTEGRATED
              || le.code() == ErrorCode.TOO_MANY_STREAMS
              || le.code() == ErrorCode.TOO_MANY_STREAMS_FROM_ADDRESS)
          && le.extensions().get("retryAfterSeconds") instanceof Long seconds) {
        return new Mapped(p, (int) Math.min(Integer.MAX_VALUE, seconds));
      }
      return new Mapped(p, le.code().status() == 503);
    }
    if (e instanceof RedisUnavailableException r) {
      log.warn("redis unavailable on {} (trace {}): {}", path, traceId, r.getMessage());
      return new Mapped(
          Problem.of(
                  ErrorCode.REDIS_UNAVAILABLE,
                  "the deduplication store cannot be reached; nothing was stored, retry later")
              .withInstance(path),
          true);
    }
    if (e instanceof StorageUnavailableException s) {
      log.warn("sql unavailable on {} (trace {}): {}", path, traceId, s.getMessage());
      return new Mapped(
          Problem.of(
                  ErrorCode.SQL_UNAVAILABLE,
                  "the database cannot be reached; nothing was stored, retry later")
              .withInstance(path),
          true);
    }
    if (e instanceof LuaRedisException r) {
      log.error("redis script failed on {} (trace {})", path, traceId, r);
      return new Mapped(
          Problem.of(
                  ErrorCode.REDIS_UNAVAILABLE, "the deduplication store failed: " + r.getMessage())
              .withInstance(path),
          true);
    }
    if (e instanceof RedisException r) {
      // A Redis client error that no caller classified (a cluster node that cannot be reached, a
      // command timeout): Redis is a fast path that can be away, never a reason for a 500.
      log.warn("redis unreachable on {} (trace {}): {}", path, traceId, r.toString());
      return new Mapped(
          Problem.of(ErrorCode.REDIS_UNAVAILABLE, "redis cannot be reached; retry later")
              .withInstance(path),
          true);
    }
    if (e instanceof HttpResponseException h) {
      ErrorCode code =
          switch (h.getStatus()) {
            case 404 -> ErrorCode.NOT_FOUND;
            case 405 -> ErrorCode.METHOD_NOT_ALLOWED;
            case 413 -> ErrorCode.BODY_TOO_LARGE;
            case 400 -> ErrorCode.INVALID_FIELD;
            default -> null;
          };
      if (code != null) {
        String detail =
            code == ErrorCode.METHOD_NOT_ALLOWED
                ? "this path does not take this method; use one named in the Allow header"
                : h.getMessage();
        return new Mapped(Problem.of(code, detail).withInstance(path), false);
      }
    }
    DamagedRowException damaged = DamagedRowException.in(e);
    if (damaged != null) {
      log.error("damaged row on {} (trace {}): {}", path, traceId, damaged.getMessage());
      return new Mapped(
          Problem.of(
                  ErrorCode.INTERNAL,
                  "stored data this request needs is damaged; the operators have an alert naming"
                      + " it")
              .withInstance(path),
          false);
    }
    log.error("internal error on {} (trace {})", path, traceId, e);
    return new Mapped(
        Problem.of(ErrorCode.INTERNAL, "internal error; the server log has the details")
            .withInstance(path),
        false);
  }
}
