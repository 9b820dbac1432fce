package dev.danmakuledger.bench.chaos;

/** The faults the chaos harness injects (docs/benchmarks.md), named as the report prints them. */
enum FaultKind {
  SERVER_SIGKILL("sync-server SIGKILL + restart", Needs.NOTHING),
  AGENT_SIGKILL("agent SIGKILL mid-capture + restart", Needs.NOTHING),
  REDIS_RESTART_EMPTY("Redis restart, all data lost", Needs.NOTHING),
  REDIS_OLD_SNAPSHOT("Redis restart from an older RDB snapshot", Needs.NOTHING),
  REDIS_FAILOVER_LAGGING("Redis failover to a lagging replica", Needs.NOTHING),
  ROOM_COUNTER_SET_BACK("room counter set back in Redis", Needs.NOTHING),
  MARIADB_RESTART("MariaDB SIGKILL + restart (harness-owned)", Needs.OWNED_MARIADB),
  SQL_CONNECTION_KILL("SQL session killed mid-transaction", Needs.MARIADB),
  TWO_INSTANCES("one batch taken by two instances at once", Needs.MARIADB),
  CLONED_DEVICE("cloned device syncing beside its original", Needs.NOTHING),
  SERVER_PAUSE("sync-server slow-down (SIGSTOP 1-4 s)", Needs.NOTHING),
  PROXY_SLOW("slow network (proxy delay 50-300 ms/chunk, 5 s)", Needs.NOTHING),
  PROXY_CUT_ALL("all connections cut (proxy)", Needs.NOTHING),
  PROXY_DROPPED_CONNECTION("dropped connection (proxy, random)", Needs.NOTHING),
  PROXY_LOST_RESPONSE("lost response (proxy, random)", Needs.NOTHING);

  /** What a fault needs of the run's set-up. */
  enum Needs {
    NOTHING,
    /** A MariaDB the servers share (harness-owned or {@code --jdbc}): SQL sessions, 2 servers. */
    MARIADB,
    /** A MariaDB the harness owns, so it may kill the server process. */
    OWNED_MARIADB
  }

  final String label;
  final Needs needs;

  FaultKind(String label, Needs needs) {
    this.label = label;
    this.needs = needs;
  }

  /** True for the faults the proxy draws at random on every connection, not on a schedule. */
  boolean random() {
    return this == PROXY_DROPPED_CONNECTION || this == PROXY_LOST_RESPONSE;
  }

  /**
   * Why this fault cannot be injected with the given set-up, or null when it can.
   *
   * @param mariadb the servers share a MariaDB
   * @param ownedMariaDb that MariaDB is the harness's own
   */
  String whyNot(boolean mariadb, boolean ownedMariaDb) {
    return switch (needs) {
      case NOTHING -> null;
      case MARIADB ->
          mariadb
              ? null
              : "needs a MariaDB two servers share (--own-mariadb or --jdbc); the embedded H2"
                  + " lives inside the one server";
      case OWNED_MARIADB ->
          ownedMariaDb ? null : "needs a MariaDB the harness owns and may kill (--own-mariadb)";
    };
  }
}
