package dev.danmakuledger.server.http;

import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.server.LedgerException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;

/**
 * Bounds the request bodies being read at once, per instance and per client address ({@link
 * HttpLimits}). A worker thread blocks while it reads a body, so a crowd of slow senders could
 * otherwise hold every thread of the listener; past a bound the request is refused before a byte of
 * its body is read, and the thread is free again at once.
 */
final class BodyAdmission {
  /** Seconds a refused client should wait: bodies are short-lived, a permit frees up quickly. */
  static final long RETRY_AFTER_SECONDS = 1;

  /** Which bound refused a request, the {@code limit} tag of {@code danmaku_http_refused}. */
  enum Limit {
    BODIES("bodies"),
    BODIES_PER_ADDRESS("bodies-per-address"),
    BODY_TIMEOUT("body-timeout");

    final String tag;

    Limit(String tag) {
      this.tag = tag;
    }
  }

  /** A held admission; closing it lets the next body in. */
  interface Permit extends AutoCloseable {
    @Override
    void close();
  }

  private final int maxBodies;
  private final int maxPerAddress;
  private final Semaphore bodies;
  private final ConcurrentHashMap<String, Integer> byAddress = new ConcurrentHashMap<>();
  private final Map<Limit, Counter> refused;

  BodyAdmission(HttpLimits limits, MeterRegistry registry) {
    this.maxBodies = limits.maxBodies();
    this.maxPerAddress = limits.maxBodiesPerAddress();
    this.bodies = new Semaphore(maxBodies);
    Map<Limit, Counter> counters = new java.util.EnumMap<>(Limit.class);
    for (Limit l : Limit.values()) {
      counters.put(
          l,
          Counter.builder("danmaku.http.refused")
              .description("requests refused at an admission limit of the HTTP listener")
              .tag("limit", l.tag)
              .register(registry));
    }
    this.refused = counters;
    Gauge.builder("danmaku.http.bodies", this, BodyAdmission::reading)
        .description("request bodies being read at once on this instance")
        .register(registry);
  }

  /** Bodies being read now. */
  int reading() {
    return maxBodies - bodies.availablePermits();
  }

  /**
   * Admits one body from {@code address}.
   *
   * @throws LedgerException RATE_LIMITED (429) when the address reads its limit already, OVERLOADED
   *     (503) when the instance does; both with a retry time
   */
  Permit enter(String address) {
    boolean[] admitted = {false};
    byAddress.compute(
        address,
        (a, n) -> {
          int held = n == null ? 0 : n;
          if (held >= maxPerAddress) {
            return n;
          }
          admitted[0] = true;
          return held + 1;
        });
    if (!admitted[0]) {
      refused.get(Limit.BODIES_PER_ADDRESS).increment();
      throw new LedgerException(
          ErrorCode.RATE_LIMITED,
          "client address "
              + address
              + " is sending "
              + maxPerAddress
              + " request bodies at once already, the most one address may; retry when one of"
              + " them is done",
          Map.of("retryAfterSeconds", RETRY_AFTER_SECONDS));
    }
    if (!bodies.tryAcquire()) {
      leave(address);
      refused.get(Limit.BODIES).increment();
      throw new LedgerException(
          ErrorCode.OVERLOADED,
          "this instance is reading "
              + maxBodies
              + " request bodies at once already, the most it reads; retry shortly or against"
              + " another instance");
    }
    return () -> {
      bodies.release();
      leave(address);
    };
  }

  /** Counts a body cut off for arriving too slowly or not at all. */
  void timedOut() {
    refused.get(Limit.BODY_TIMEOUT).increment();
  }

  private void leave(String address) {
    byAddress.computeIfPresent(address, (a, n) -> n <= 1 ? null : n - 1);
  }
}
