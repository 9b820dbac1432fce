package dev.danmakuledger.lua;

import io.lettuce.core.RedisBusyException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisLoadingException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisReadOnlyException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs one script call: EVALSHA, and on {@code NOSCRIPT} (restart, failover, SCRIPT FLUSH) sends
 * the full script once with EVAL, which also caches it; maps Redis errors to the typed exceptions
 * and retries the transient ones under the {@link RetryPolicy} (docs/lua-scripts.md, "Errors and
 * retries"). Retrying is sound because every script is safe to re-run: a re-run admit returns the
 * keys its first run stored as DUPLICATEs of themselves.
 */
final class ScriptCaller {
  /** Redis 6 wraps an error raised by a command inside a script; group 1 is its code. */
  private static final Pattern NESTED =
      Pattern.compile("@user_script:\\s*\\d+:\\s*-([A-Z][A-Z_]*)\\b");

  private final RedisOps redis;
  private final RetryPolicy policy;
  private final Map<LuaScript, String> shas = new ConcurrentHashMap<>();

  ScriptCaller(RedisOps redis, RetryPolicy policy) {
    this.redis = Objects.requireNonNull(redis, "redis");
    this.policy = Objects.requireNonNull(policy, "policy");
  }

  /** Runs {@code script} and checks that the reply starts with the script's version. */
  List<Object> call(LuaScript script, String[] keys, String[] args) {
    return checked(script, withRetry(() -> evalOnce(script, keys, args)));
  }

  /**
   * Sends one EVALSHA of {@code script} for each pair of {@code keys} and {@code args}, all in one
   * write and without waiting, no retry and no fallback to EVAL: a caller that gets a failure runs
   * {@link #call} for that call, which retries under the retry policy, sends the script in full if
   * Redis lost it (re-running a script is safe, see the class comment), and fails as {@link
   * RedisUnavailableException} if Redis stays unreachable.
   *
   * @return each call's reply, in the order of {@code keys}
   */
  List<CompletableFuture<List<Object>>> sendAll(
      LuaScript script, List<String[]> keys, List<String[]> args) {
    return redis.evalshaAll(shas.computeIfAbsent(script, LuaScript::sha1), keys, args);
  }

  /**
   * The checked reply of the call {@link #sendAll} sent with {@code keys} and {@code args}; where
   * it failed or took longer than the connection's command timeout, the call run again alone with
   * {@link #call}.
   */
  List<Object> replyOrCall(
      CompletableFuture<List<Object>> sent, LuaScript script, String[] keys, String[] args) {
    List<Object> reply = awaited(sent);
    return reply == null ? call(script, keys, args) : checked(script, reply);
  }

  /**
   * The reply of a call {@link #sendAll} sent, or null when it failed or took longer than the
   * connection's command timeout.
   */
  private List<Object> awaited(CompletableFuture<List<Object>> reply) {
    try {
      return reply.get(redis.timeout().toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RedisUnavailableException(
          RedisUnavailableException.Reason.INTERRUPTED,
          true,
          1,
          "interrupted while waiting for a pipelined admit",
          e);
    } catch (ExecutionException | TimeoutException | CancellationException e) {
      return null;
    }
  }

  /** Checks that {@code reply} starts with the version of {@code script}. */
  static List<Object> checked(LuaScript script, List<Object> reply) {
    if (reply == null || reply.isEmpty() || !(reply.get(0) instanceof Long version)) {
      throw new ScriptException(
          "BADREPLY", "script " + script + ": got reply " + reply + ", want {version, ...}", null);
    }
    if (version != script.version()) {
      throw new ScriptException(
          "BADVERSION",
          "script " + script.name() + ": got version " + version + ", want " + script.version(),
          null);
    }
    return reply;
  }

  private List<Object> evalOnce(LuaScript script, String[] keys, String[] args) {
    try {
      return redis.evalsha(shas.computeIfAbsent(script, LuaScript::sha1), keys, args);
    } catch (RedisNoScriptException e) {
      try {
        return redis.eval(script.source(), keys, args);
      } catch (RedisNoScriptException again) {
        throw new NoScriptException(
            "script " + script + " unknown to Redis even after sending it in full", again);
      }
    }
  }

  /** Runs {@code op} under this caller's policy. */
  <T> T withRetry(Supplier<T> op) {
    return withRetry(policy, op);
  }

  /** Runs {@code op}, retrying transient failures; throws the mapped failure of the last try. */
  static <T> T withRetry(RetryPolicy policy, Supplier<T> op) {
    Instant start = policy.now();
    for (int attempt = 1; ; attempt++) {
      try {
        return op.get();
      } catch (NoScriptException e) {
        throw e;
      } catch (RedisException e) {
        Failure failure = classify(e);
        if (!failure.retryable() || attempt >= policy.maxAttempts()) {
          throw failure.toException(attempt);
        }
        Duration delay = policy.delayBefore(attempt);
        if (!policy.withinBudget(start, delay)) {
          throw failure.toException(attempt);
        }
        try {
          policy.pause().sleep(delay);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw new RedisUnavailableException(
              RedisUnavailableException.Reason.INTERRUPTED,
              failure.ambiguous(),
              attempt,
              "interrupted while waiting to retry",
              e);
        }
      }
    }
  }

  /** What one failed attempt means: which exception, whether another attempt may help. */
  record Failure(Kind kind, boolean retryable, boolean ambiguous, RedisException cause) {
    enum Kind {
      UNAVAILABLE_CONNECTION,
      UNAVAILABLE_TIMEOUT,
      UNAVAILABLE_BUSY,
      UNAVAILABLE_LOADING,
      UNAVAILABLE_CLUSTER,
      UNAVAILABLE_INTERRUPTED,
      READONLY,
      CROSSSLOT,
      NOSCRIPT,
      SCRIPT
    }

    LuaRedisException toException(int attempts) {
      String message = String.valueOf(cause.getMessage());
      return switch (kind) {
        case UNAVAILABLE_CONNECTION ->
            unavailable(RedisUnavailableException.Reason.CONNECTION, attempts);
        case UNAVAILABLE_TIMEOUT -> unavailable(RedisUnavailableException.Reason.TIMEOUT, attempts);
        case UNAVAILABLE_BUSY -> unavailable(RedisUnavailableException.Reason.BUSY, attempts);
        case UNAVAILABLE_LOADING -> unavailable(RedisUnavailableException.Reason.LOADING, attempts);
        case UNAVAILABLE_CLUSTER -> unavailable(RedisUnavailableException.Reason.CLUSTER, attempts);
        case UNAVAILABLE_INTERRUPTED ->
            unavailable(RedisUnavailableException.Reason.INTERRUPTED, attempts);
        case READONLY -> new ReadOnlyException(message, cause);
        case CROSSSLOT -> new CrossSlotException(message, cause);
        case NOSCRIPT -> new NoScriptException(message, cause);
        case SCRIPT -> new ScriptException(code(message), message, cause);
      };
    }

    private RedisUnavailableException unavailable(
        RedisUnavailableException.Reason reason, int attempts) {
      return new RedisUnavailableException(
          reason, ambiguous, attempts, String.valueOf(cause.getMessage()), cause);
    }
  }

  static Failure classify(RedisException e) {
    if (e instanceof RedisBusyException) {
      return new Failure(Failure.Kind.UNAVAILABLE_BUSY, true, false, e);
    }
    if (e instanceof RedisLoadingException) {
      return new Failure(Failure.Kind.UNAVAILABLE_LOADING, true, false, e);
    }
    if (e instanceof RedisReadOnlyException) {
      return new Failure(Failure.Kind.READONLY, true, false, e);
    }
    if (e instanceof RedisNoScriptException) {
      return new Failure(Failure.Kind.NOSCRIPT, false, false, e);
    }
    if (e instanceof RedisCommandTimeoutException) {
      return new Failure(Failure.Kind.UNAVAILABLE_TIMEOUT, true, true, e);
    }
    if (e instanceof RedisCommandInterruptedException) {
      return new Failure(Failure.Kind.UNAVAILABLE_INTERRUPTED, false, true, e);
    }
    if (e instanceof RedisConnectionException) {
      return new Failure(Failure.Kind.UNAVAILABLE_CONNECTION, true, false, e);
    }
    if (e instanceof RedisCommandExecutionException) {
      return switch (code(String.valueOf(e.getMessage()))) {
        case "BUSY" -> new Failure(Failure.Kind.UNAVAILABLE_BUSY, true, false, e);
        case "LOADING" -> new Failure(Failure.Kind.UNAVAILABLE_LOADING, true, false, e);
        case "READONLY" -> new Failure(Failure.Kind.READONLY, true, false, e);
        case "NOSCRIPT" -> new Failure(Failure.Kind.NOSCRIPT, false, false, e);
        case "CROSSSLOT" -> new Failure(Failure.Kind.CROSSSLOT, false, false, e);
        case "CLUSTERDOWN", "TRYAGAIN", "MASTERDOWN" ->
            new Failure(Failure.Kind.UNAVAILABLE_CLUSTER, true, false, e);
        default -> new Failure(Failure.Kind.SCRIPT, false, false, e);
      };
    }
    // Connection closed or reset while the command was in flight: it may have run.
    return new Failure(Failure.Kind.UNAVAILABLE_CONNECTION, true, true, e);
  }

  /**
   * The error code of a Redis error reply: its first word, or, when a command called inside a
   * script failed and Redis 6 wrapped it ({@code ERR Error running script ...: @user_script: 30:
   * -READONLY You can't write ...}), the code of the wrapped error.
   */
  static String code(String message) {
    Matcher nested = NESTED.matcher(message);
    if (message.startsWith("ERR") && nested.find()) {
      return nested.group(1);
    }
    String trimmed = message.strip();
    int space = trimmed.indexOf(' ');
    return space < 0 ? trimmed : trimmed.substring(0, space);
  }
}
