package dev.danmakuledger.bench.ingest;

import dev.danmakuledger.server.http.HttpLimits;

/**
 * The admission limits of a server under test whose simulated devices all post from 127.0.0.1: the
 * per-address body limit stands against one hostile client (docs/operations.md, "Admission
 * limits"), and would refuse devices a run means as many clients.
 */
public final class CrowdLimits {
  private CrowdLimits() {}

  /**
   * The defaults, but {@code bodies} (at least the default) read at once in all and from one
   * address, and request threads enough for them.
   */
  public static HttpLimits of(int bodies) {
    int most = Math.max(HttpLimits.DEFAULTS.maxBodies(), bodies);
    return new HttpLimits(
        most,
        most,
        HttpLimits.DEFAULTS.minBodyBytesPerSecond(),
        HttpLimits.DEFAULTS.idleTimeout(),
        HttpLimits.DEFAULTS.maxHeaderBytes(),
        Math.max(HttpLimits.DEFAULTS.maxThreads(), most + 64));
  }
}
