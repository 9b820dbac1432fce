package dev.danmakuledger.server.http;

import java.time.Duration;
import java.util.Objects;

/**
 * Admission limits of the HTTP listener (docs/operations.md, "Admission limits"). Request bodies
 * are read by blocking request threads, so how many are read at once is bounded, per instance and
 * per client address, and a body must keep arriving: a client that sends slower than {@code
 * minBodyBytesPerSecond}, or falls silent for {@code idleTimeout}, is cut off with 408. Beyond a
 * limit the answer comes at once: 503 {@code overloaded} or 429 {@code rate-limited}, with {@code
 * Retry-After} and counted in {@code danmaku_http_refused_total}; reads and {@code /healthz} keep
 * the worker threads that bodies may not take.
 *
 * @param maxBodies request bodies read at once on this instance, 1..10,000; beyond, 503
 * @param maxBodiesPerAddress request bodies read at once from one client address, 1..maxBodies;
 *     beyond, 429
 * @param minBodyBytesPerSecond slowest accepted body, in bytes per second since its first byte
 *     (Jetty's minimum request data rate); 0 turns the check off
 * @param idleTimeout longest silence on a connection, also in the middle of a request head or body
 *     (Jetty's idle timeout), 1 s .. 10 min; keep it above the 15 s stream heartbeat
 * @param maxHeaderBytes largest request line plus header fields, 1 KiB .. 1 MiB; beyond, 431
 * @param maxThreads request threads of the listener, at least {@code maxBodies + 24}; a batch holds
 *     one while its body is read, parsed and verified, not while it waits for its tick
 */
public record HttpLimits(
    int maxBodies,
    int maxBodiesPerAddress,
    long minBodyBytesPerSecond,
    Duration idleTimeout,
    int maxHeaderBytes,
    int maxThreads) {

  /**
   * Threads kept for reads, health checks, stream openings and replies whatever the bodies do: CPU
   * work and short SQL reads, since no request waits for a commit on its thread.
   */
  static final int SPARE_THREADS = 24;

  /**
   * Defaults: 16 bodies at once, 8 per address, at least 1 KiB/s, 30 s idle, 8 KiB of headers
   * (Jetty's and Javalin's own defaults for the last two), 40 threads: the bodies plus the spare. A
   * request thread holds no batch beyond its parse and verification (the reply is written when the
   * tick committed), so threads track the CPU work, not the batches waiting for a commit.
   */
  public static final HttpLimits DEFAULTS =
      new HttpLimits(16, 8, 1024, Duration.ofSeconds(30), 8 * 1024, 16 + SPARE_THREADS);

  public HttpLimits {
    Objects.requireNonNull(idleTimeout, "idleTimeout");
    if (maxBodies < 1 || maxBodies > 10_000) {
      throw new IllegalArgumentException("maxBodies: got " + maxBodies + ", want 1..10000");
    }
    if (maxBodiesPerAddress < 1 || maxBodiesPerAddress > maxBodies) {
      throw new IllegalArgumentException(
          "maxBodiesPerAddress: got "
              + maxBodiesPerAddress
              + ", want 1..maxBodies ("
              + maxBodies
              + ")");
    }
    if (minBodyBytesPerSecond < 0) {
      throw new IllegalArgumentException(
          "minBodyBytesPerSecond: got " + minBodyBytesPerSecond + ", want >= 0");
    }
    if (idleTimeout.compareTo(Duration.ofSeconds(1)) < 0
        || idleTimeout.compareTo(Duration.ofMinutes(10)) > 0) {
      throw new IllegalArgumentException("idleTimeout: got " + idleTimeout + ", want 1s..10min");
    }
    if (maxHeaderBytes < 1024 || maxHeaderBytes > 1024 * 1024) {
      throw new IllegalArgumentException(
          "maxHeaderBytes: got " + maxHeaderBytes + ", want 1024..1048576");
    }
    if (maxThreads < maxBodies + SPARE_THREADS) {
      throw new IllegalArgumentException(
          "maxThreads: got "
              + maxThreads
              + ", want at least maxBodies + "
              + SPARE_THREADS
              + " ("
              + (maxBodies + SPARE_THREADS)
              + ") so that reads keep threads while bodies are read");
    }
  }
}
