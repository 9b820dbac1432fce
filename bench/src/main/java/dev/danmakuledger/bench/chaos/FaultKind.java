package dev.danmakuledger.bench.chaos;

/** The faults the chaos harness injects (docs/benchmarks.md), named as the report prints them. */
enum FaultKind {
  SERVER_SIGKILL("sync-server SIGKILL + restart", Needs.NOTHING),
  SUBSCRIBED_SERVER_SIGKILL("sync-server SIGKILL with stream subscribers attached", Needs.NOTHING),
  AGENT_SIGKILL("agent SIGKILL mid-capture + restart", Needs.NOTHING),
  REDIS_RESTART_EMPTY("Redis restart, all data lost", Needs.NOTHING),
  REDIS_OLD_SNAPSHOT("Redis restart from an older RDB snapshot", Needs.NOTHING),
  REDIS_FAILOVER_LAGGING("Redis failover to a lagging replica", Needs.REDIS_PAIR),
  REDIS_MASTER_KILL("Redis Cluster master SIGKILL, replica promoted", Needs.REDIS_CLUSTER),
  ROOM_COUNTER_SET_BACK("room counter set back in Redis", Needs.NOTHING),
  MARIADB_RESTART("MariaDB SIGKILL + restart (harness-owned)", Needs.OWNED_MARIADB),
  SQL_CONNECTION_KILL("SQL session killed mid-transaction", Needs.MARIADB),
  TWO_INSTANCES("one batch taken by two instances at once", Needs.TWO_SERVERS),
  CLONED_DEVICE("cloned device syncing beside its original", Needs.NOTHING),
  SERVER_PAUSE("sync-server slow-down (SIGSTOP 1-4 s)", Needs.NOTHING),
  SUBSCRIBER_STALL("stream subscriber stalled (reads nothing for 10 s)", Needs.NOTHING),
  PROXY_SLOW("slow network (proxy delay 50-300 ms/chunk, 5 s)", Needs.NOTHING),
  PROXY_CUT_ALL("all connections cut (proxy)", Needs.NOTHING),
  KAFKA_BROKER_SIGKILL("Kafka broker SIGKILL + restart", Needs.KAFKA),
  RELAY_SIGKILL_MID_TRANSACTION("relay's sync-server SIGKILL mid-Kafka-transaction", Needs.KAFKA),
  KAFKA_CUT("relay cut off from the Kafka brokers (4-15 s)", Needs.KAFKA),
  PROXY_DROPPED_CONNECTION("dropped connection (proxy, random)", Needs.NOTHING),
  PROXY_LOST_RESPONSE("lost response (proxy, random)", Needs.NOTHING);

  /** What a fault needs of the run's set-up. */
  enum Needs {
    NOTHING,
    /** A MariaDB the servers share (harness-owned or {@code --jdbc}): SQL sessions. */
    MARIADB,
    /** A MariaDB the harness owns, so it may kill the server process. */
    OWNED_MARIADB,
    /** Two sync servers or more, on a MariaDB they share. */
    TWO_SERVERS,
    /** A Redis primary and replica the harness can cut apart (not a Redis Cluster). */
    REDIS_PAIR,
    /** A Redis Cluster ({@code --redis-cluster}). */
    REDIS_CLUSTER,
    /** The Kafka relay on the servers and the brokers it relays to ({@code --kafka}). */
    KAFKA
  }

  /**
   * The set-up of a run, as far as the faults care.
   *
   * @param mariadb the servers share a MariaDB
   * @param ownedMariaDb that MariaDB is the harness's own
   * @param servers how many sync servers run
   * @param redisCluster Redis is a Redis Cluster rather than a primary and a replica
   * @param kafka the servers relay to Kafka brokers the harness owns
   */
  record Setup(
      boolean mariadb, boolean ownedMariaDb, int servers, boolean redisCluster, boolean kafka) {}

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
   * True for a fault of a part of the set-up that a run chooses: a Redis topology (the other
   * topology has its own failover: a primary and replica are failed over by the harness, a Redis
   * Cluster fails over by itself) or the Kafka relay. Such a fault is out of a run without that
   * part without being left out by name.
   */
  boolean ofChosenPart() {
    return needs == Needs.REDIS_PAIR || needs == Needs.REDIS_CLUSTER || needs == Needs.KAFKA;
  }

  /** Why this fault cannot be injected with {@code s}, or null when it can. */
  String whyNot(Setup s) {
    return switch (needs) {
      case NOTHING -> null;
      case MARIADB ->
          s.mariadb()
              ? null
              : "needs a MariaDB the servers share (--own-mariadb or --jdbc); the embedded H2"
                  + " lives inside the one server";
      case OWNED_MARIADB ->
          s.ownedMariaDb() ? null : "needs a MariaDB the harness owns and may kill (--own-mariadb)";
      case TWO_SERVERS ->
          s.mariadb() && s.servers() >= 2
              ? null
              : "needs two sync servers or more on a shared MariaDB (--own-mariadb or --jdbc,"
                  + " --servers 2 or more)";
      case REDIS_PAIR ->
          s.redisCluster()
              ? "is of a primary and replica the harness fails over; a Redis Cluster fails over"
                  + " by itself (redis-master-kill) and refuses REPLICAOF"
              : null;
      case REDIS_CLUSTER -> s.redisCluster() ? null : "needs a Redis Cluster (--redis-cluster)";
      case KAFKA -> s.kafka() ? null : "needs the Kafka relay (--kafka)";
    };
  }
}
