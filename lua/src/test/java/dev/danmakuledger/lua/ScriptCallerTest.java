package dev.danmakuledger.lua;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.RedisBusyException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisLoadingException;
import io.lettuce.core.RedisReadOnlyException;
import io.lettuce.core.api.StatefulConnection;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class ScriptCallerTest {
  private final List<Duration> waits = new ArrayList<>();
  private final RetryPolicy policy =
      RetryPolicy.exponential(4, Duration.ofMillis(100), Duration.ofSeconds(1))
          .withPause(waits::add)
          .withRandom(() -> 0.5);

  /** Fails with {@code failures} in order, then answers "ok". */
  private static Supplier<String> failing(AtomicInteger calls, RedisException... failures) {
    return () -> {
      int n = calls.getAndIncrement();
      if (n < failures.length) {
        throw failures[n];
      }
      return "ok";
    };
  }

  @Test
  void aPipelineTheConnectionCannotTakeFailsEachOfItsCalls() throws Exception {
    RedisConnectionException down = new RedisConnectionException("Unable to connect to :43675");
    // A connection whose hand-over throws, as a cluster connection does for a node it cannot reach.
    @SuppressWarnings("unchecked")
    StatefulConnection<String, String> unreachable =
        (StatefulConnection<String, String>)
            Proxy.newProxyInstance(
                StatefulConnection.class.getClassLoader(),
                new Class<?>[] {StatefulConnection.class},
                (proxy, method, methodArgs) -> {
                  if (method.getName().equals("dispatch")) {
                    throw down;
                  }
                  throw new AssertionError("the admit called " + method.getName());
                });
    RedisOps redis = new RedisOps(null, null, null, unreachable, Duration.ofSeconds(1), () -> {});
    ScriptCaller caller = new ScriptCaller(redis, policy);
    List<CompletableFuture<List<Object>>> replies =
        caller.sendAll(
            LuaScript.of("echo", "-- version: 1\nlocal VERSION = 1\nreturn {VERSION}"),
            List.of(new String[] {"a"}, new String[] {"b"}, new String[] {"c"}),
            List.of(new String[0], new String[0], new String[0]));
    assertEquals(3, replies.size());
    for (var r : replies) {
      assertTrue(r.isCompletedExceptionally());
      ExecutionException e = assertThrows(ExecutionException.class, r::get);
      assertSame(down, e.getCause());
    }
  }

  @Test
  void transientFailuresAreRetriedWithJitteredBackoff() {
    AtomicInteger calls = new AtomicInteger();
    String got =
        ScriptCaller.withRetry(
            policy,
            failing(
                calls,
                new RedisBusyException("BUSY Redis is busy running a script"),
                new RedisLoadingException("LOADING Redis is loading the dataset in memory"),
                new RedisConnectionException("Unable to connect")));
    assertEquals("ok", got);
    assertEquals(4, calls.get());
    assertEquals(List.of(ms(50), ms(100), ms(200)), waits);
  }

  @Test
  void attemptsAreBoundedAndTheLastFailureIsTyped() {
    AtomicInteger calls = new AtomicInteger();
    RedisException busy = new RedisBusyException("BUSY script");
    RedisUnavailableException e =
        assertThrows(
            RedisUnavailableException.class,
            () -> ScriptCaller.withRetry(policy, failing(calls, busy, busy, busy, busy, busy)));
    assertEquals(RedisUnavailableException.Reason.BUSY, e.reason());
    assertEquals(4, e.attempts());
    assertEquals(4, calls.get());
    assertSame(busy, e.getCause());
  }

  @Test
  void elapsedBudgetOnTheClockStopsRetries() {
    Instant[] now = {Instant.parse("2026-01-01T00:00:00Z")};
    Clock clock =
        new Clock() {
          @Override
          public ZoneOffset getZone() {
            return ZoneOffset.UTC;
          }

          @Override
          public Clock withZone(java.time.ZoneId zone) {
            return this;
          }

          @Override
          public Instant instant() {
            return now[0];
          }
        };
    RetryPolicy budgeted =
        RetryPolicy.exponential(10, Duration.ofSeconds(1), Duration.ofSeconds(10))
            .withRandom(() -> 0.5)
            .withMaxElapsed(Duration.ofSeconds(1))
            .withClock(clock)
            .withPause(d -> now[0] = now[0].plus(d));
    AtomicInteger calls = new AtomicInteger();
    RedisException down = new RedisConnectionException("down");
    assertThrows(
        RedisUnavailableException.class,
        () -> ScriptCaller.withRetry(budgeted, failing(calls, down, down, down, down)));
    assertEquals(2, calls.get(), "0.5 s waited, the next 1 s wait would cross the 1 s budget");
  }

  @Test
  void errorsThatRetryCannotFixAreNotRetried() {
    for (RedisException e :
        List.<RedisException>of(
            new RedisCommandExecutionException("CROSSSLOT Keys in request don't hash to the same"),
            new RedisCommandExecutionException("BADARG ttl: want decimal seconds"),
            new RedisCommandExecutionException("ERR Error running script"),
            new RedisCommandInterruptedException(new InterruptedException()))) {
      AtomicInteger calls = new AtomicInteger();
      assertThrows(
          LuaRedisException.class, () -> ScriptCaller.withRetry(policy, failing(calls, e)));
      assertEquals(1, calls.get(), e.getMessage());
    }
    assertTrue(waits.isEmpty());
  }

  @Test
  void redisErrorsMapToTypedExceptions() {
    assertInstanceOf(ReadOnlyException.class, mapped(new RedisReadOnlyException("READONLY x")));
    assertInstanceOf(
        ReadOnlyException.class, mapped(new RedisCommandExecutionException("READONLY replica")));
    assertInstanceOf(
        CrossSlotException.class, mapped(new RedisCommandExecutionException("CROSSSLOT k")));
    assertInstanceOf(
        NoScriptException.class, mapped(new RedisCommandExecutionException("NOSCRIPT none")));
    ScriptException script =
        assertInstanceOf(
            ScriptException.class, mapped(new RedisCommandExecutionException("BADARG ttl")));
    assertEquals("BADARG", script.code());
    assertEquals(
        RedisUnavailableException.Reason.CLUSTER,
        unavailable(new RedisCommandExecutionException("CLUSTERDOWN The cluster is down"))
            .reason());
    assertEquals(
        RedisUnavailableException.Reason.CLUSTER,
        unavailable(new RedisCommandExecutionException("TRYAGAIN Multiple keys")).reason());
    assertEquals(
        RedisUnavailableException.Reason.BUSY,
        unavailable(new RedisCommandExecutionException("BUSY running")).reason());
    assertEquals(
        RedisUnavailableException.Reason.LOADING,
        unavailable(new RedisCommandExecutionException("LOADING")).reason());
  }

  @Test
  void lostRepliesAreMarkedAmbiguousRefusedConnectionsAreNot() {
    RedisUnavailableException timeout = unavailable(new RedisCommandTimeoutException("2 s"));
    assertEquals(RedisUnavailableException.Reason.TIMEOUT, timeout.reason());
    assertTrue(timeout.ambiguous());
    assertTrue(unavailable(new RedisException("Connection closed")).ambiguous());
    assertFalse(unavailable(new RedisConnectionException("refused")).ambiguous());
    assertFalse(unavailable(new RedisBusyException("BUSY")).ambiguous());
  }

  @Test
  void errorCodeIsTheFirstWord() {
    assertEquals("BADARG", ScriptCaller.code("BADARG ttl: want 1..2"));
    assertEquals("CORRUPT", ScriptCaller.code("  CORRUPT"));
    assertEquals("", ScriptCaller.code(""));
    // Redis 6.2 wraps an error of a command called inside a script (seen on a replica).
    assertEquals(
        "READONLY",
        ScriptCaller.code(
            "ERR Error running script (call to f_d29d4db7): @user_script:30: @user_script: 30:"
                + " -READONLY You can't write against a read only replica."));
    assertEquals("ERR", ScriptCaller.code("ERR Error running script: attempt to call a nil value"));
  }

  private static LuaRedisException mapped(RedisException e) {
    return ScriptCaller.classify(e).toException(1);
  }

  private static RedisUnavailableException unavailable(RedisException e) {
    return assertInstanceOf(RedisUnavailableException.class, mapped(e));
  }

  private static Duration ms(long millis) {
    return Duration.ofMillis(millis);
  }
}
