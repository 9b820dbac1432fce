package dev.danmakuledger.bench.chaos;

/** The faults the chaos harness injects (docs/benchmarks.md), named as the report prints them. */
enum FaultKind {
  SERVER_SIGKILL("sync-server SIGKILL + restart"),
  AGENT_SIGKILL("agent SIGKILL mid-capture + restart"),
  REDIS_RESTART_EMPTY("Redis restart, all data lost"),
  MARIADB_RESTART("MariaDB SIGKILL + restart (harness-owned)"),
  SERVER_PAUSE("sync-server slow-down (SIGSTOP 1-4 s)"),
  PROXY_SLOW("slow network (proxy delay 50-300 ms/chunk, 5 s)"),
  PROXY_CUT_ALL("all connections cut (proxy)"),
  PROXY_DROPPED_CONNECTION("dropped connection (proxy, random)"),
  PROXY_LOST_RESPONSE("lost response (proxy, random)");

  final String label;

  FaultKind(String label) {
    this.label = label;
  }
}
