package dev.danmakuledger.bench.chaos;

import java.util.List;
import java.util.Locale;

/**
 * The HAProxy configuration a multi-instance chaos run balances its sync servers with, as
 * docs/operations.md ("Several instances behind HAProxy") recommends it: round robin over the
 * instances, each checked on {@code GET /healthz} every 500 ms (down after two failures, up after
 * one success), a failed connection or an empty answer retried on another instance (a batch is
 * idempotent, so a retry is safe), timeouts that let a room stream (SSE, a 15 s comment heartbeat)
 * stay open, and the balancer's own 502/503/504 answered as an RFC 9457 problem with {@code
 * Retry-After} and the header {@value #BALANCER_HEADER}, so that clients back off and a reader of
 * the answer can tell the balancer's word from an instance's.
 *
 * @param listenPort the loopback port HAProxy listens on
 * @param serverPorts the loopback ports of the sync servers, one {@code server} line each
 * @param maxConnections client connections HAProxy holds at once (its {@code maxconn}: every open
 *     room stream is one), 1..1,000,000
 * @param bufferBytes HAProxy's {@code tune.bufsize}, 16 KiB..16 MiB: the largest request it can
 *     retry on another instance, and what each connection's buffers cost while data moves
 */
public record HaproxyConfig(
    int listenPort, List<Integer> serverPorts, int maxConnections, int bufferBytes) {
  /** The connections a chaos run holds at most: its agents' batches and a few subscribers. */
  static final int CHAOS_CONNECTIONS = 512;

  /** Buffers that hold a batch of up to 1 MiB, so that HAProxy can retry it elsewhere. */
  public static final int BATCH_BUFFER_BYTES = 1 << 20;

  /**
   * Buffers for many open room streams: live batches of tens of records still fit (and are
   * retried), larger ones are forwarded and their agents retry them.
   */
  public static final int STREAM_BUFFER_BYTES = 64 << 10;

  /** Marks an answer HAProxy made itself (no instance reached), not one it relayed. */
  static final String BALANCER_HEADER = "X-Balancer";

  /** The liveness endpoint of a sync server (docs/operations.md, "Health, readiness, metrics"). */
  static final String HEALTH_PATH = "/healthz";

  public HaproxyConfig {
    if (bufferBytes < 16 << 10 || bufferBytes > 16 << 20) {
      throw new IllegalArgumentException(
          "buffer bytes: got " + bufferBytes + ", want 16384..16777216");
    }
    if (maxConnections < 1 || maxConnections > 1_000_000) {
      throw new IllegalArgumentException(
          "max connections: got " + maxConnections + ", want 1..1000000");
    }
    if (listenPort < 1 || listenPort > 65_535) {
      throw new IllegalArgumentException("listen port: got " + listenPort + ", want 1..65535");
    }
    serverPorts = List.copyOf(serverPorts);
    if (serverPorts.isEmpty()) {
      throw new IllegalArgumentException("servers: got none, want at least one");
    }
    for (int p : serverPorts) {
      if (p < 1 || p > 65_535 || p == listenPort) {
        throw new IllegalArgumentException(
            "server port: got " + p + ", want 1..65535 and not the listen port " + listenPort);
      }
    }
    if (serverPorts.stream().distinct().count() != serverPorts.size()) {
      throw new IllegalArgumentException("server ports: got " + serverPorts + ", want distinct");
    }
  }

  /**
   * The configuration of a chaos run: {@value #CHAOS_CONNECTIONS} connections, buffers of {@link
   * #BATCH_BUFFER_BYTES}.
   */
  HaproxyConfig(int listenPort, List<Integer> serverPorts) {
    this(listenPort, serverPorts, CHAOS_CONNECTIONS, BATCH_BUFFER_BYTES);
  }

  /** The configuration file's text. */
  String render() {
    StringBuilder b = new StringBuilder();
    b.append("# sync servers behind HAProxy (docs/operations.md, \"Several instances\")\n")
        .append("global\n")
        .append("    maxconn ")
        .append(maxConnections)
        .append('\n')
        .append("    tune.bufsize ")
        .append(bufferBytes)
        .append('\n')
        .append("\n")
        .append("defaults\n")
        .append("    mode http\n")
        .append("    option http-keep-alive\n")
        .append("    timeout connect 2s\n")
        .append("    timeout http-request 30s\n")
        .append("    timeout queue 10s\n")
        .append(
            "    # a batch may take seconds under load; a room stream sends a comment every 15 s\n")
        .append("    timeout client 60s\n")
        .append("    timeout server 60s\n")
        .append("    # long-lived streams once established\n")
        .append("    timeout tunnel 1h\n")
        .append(
            "    # a batch is idempotent: retry a refused connection or an empty answer elsewhere\n")
        .append("    retries 3\n")
        .append("    option redispatch 1\n")
        .append("    retry-on conn-failure empty-response\n");
    for (int status : new int[] {502, 503, 504}) {
      b.append(
          String.format(
              Locale.ROOT,
              "    http-error status %d content-type application/problem+json string"
                  + " '{\"type\":\"about:blank\",\"title\":\"no sync-server instance answered\","
                  + "\"status\":%d,\"detail\":\"the load balancer reached no healthy instance; retry"
                  + " after the Retry-After delay\"}' hdr Retry-After 1 hdr %s haproxy%n",
              status,
              status,
              BALANCER_HEADER));
    }
    b.append("\n")
        .append("frontend sync\n")
        .append("    bind 127.0.0.1:")
        .append(listenPort)
        .append('\n')
        .append("    maxconn ")
        .append(maxConnections)
        .append('\n')
        .append("    default_backend sync_servers\n")
        .append("\n")
        .append("backend sync_servers\n")
        .append("    balance roundrobin\n")
        .append("    option httpchk\n")
        .append("    http-check send meth GET uri ")
        .append(HEALTH_PATH)
        .append('\n')
        .append("    http-check expect status 200\n")
        .append("    default-server inter 500ms fastinter 250ms downinter 500ms fall 2 rise 1\n");
    for (int i = 0; i < serverPorts.size(); i++) {
      b.append("    server sync-")
          .append((char) ('a' + i))
          .append(" 127.0.0.1:")
          .append(serverPorts.get(i))
          .append(" check\n");
    }
    return b.toString();
  }
}
