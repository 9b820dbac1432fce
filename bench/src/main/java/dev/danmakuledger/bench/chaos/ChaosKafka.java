package dev.danmakuledger.bench.chaos;

import dev.danmakuledger.server.kafka.KafkaRelayConfig;
import dev.danmakuledger.server.kafka.LocalKafka;
import dev.danmakuledger.server.kafka.TopicCheck;
import dev.danmakuledger.server.storage.ConfirmedFeed;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.StringJoiner;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeTransactionsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.config.TopicConfig;

/**
 * The Kafka side of a chaos run with {@code --kafka} (docs/kafka.md, "Chaos run"): three KRaft
 * brokers the harness owns ({@link LocalKafka}, child JVMs), each advertised to clients through a
 * {@link FaultProxy} of its own, so that the relay on the sync servers reaches every broker only
 * through the proxies and can be cut off from all of them while the brokers still replicate among
 * themselves. The relay's topic and positions topic are created before the servers start, with
 * replication factor 3 and {@code min.insync.replicas=2}, as docs/kafka.md, "Set-up" advises for
 * production. The harness itself (topic creation, transaction states, the verdict) talks to the
 * brokers directly.
 */
final class ChaosKafka implements AutoCloseable {
  static final int BROKERS = 3;
  private static final short REPLICATION = 3;
  private static final String MIN_INSYNC = "2";
  private static final int PARTITIONS = 4;
  private static final Duration ADMIN_WITHIN = Duration.ofSeconds(30);

  private final KafkaRelayConfig relay;
  private final List<FaultProxy> proxies;
  private final LocalKafka brokers;

  private ChaosKafka(KafkaRelayConfig relay, List<FaultProxy> proxies, LocalKafka brokers) {
    this.relay = relay;
    this.proxies = proxies;
    this.brokers = brokers;
  }

  /**
   * Starts the brokers under {@code dir} with the broker classes on {@code classpath}, their
   * proxies, and creates the relay's topics.
   */
  static ChaosKafka start(Path dir, String classpath, long seed) throws Exception {
    List<FaultProxy> proxies = new ArrayList<>();
    LocalKafka brokers;
    try {
      brokers =
          LocalKafka.start(
              dir,
              BROKERS,
              classpath,
              port -> {
                try {
                  FaultProxy p =
                      new FaultProxy(
                          new InetSocketAddress("127.0.0.1", port), 0, 0, seed + proxies.size());
                  proxies.add(p);
                  return p.port();
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
    } catch (RuntimeException e) {
      for (FaultProxy p : proxies) {
        p.close();
      }
      throw e;
    }
    StringJoiner bootstrap = new StringJoiner(",");
    for (FaultProxy p : proxies) {
      bootstrap.add("127.0.0.1:" + p.port());
    }
    ChaosKafka k =
        new ChaosKafka(
            KafkaRelayConfig.of(bootstrap.toString(), KafkaRelayConfig.DEFAULT_TOPIC),
            proxies,
            brokers);
    try {
      k.createTopics();
    } catch (Exception e) {
      k.close();
      throw e;
    }
    return k;
  }

  private Admin admin() {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, brokers.directBootstrap());
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000);
    return Admin.create(p);
  }

  private void createTopics() throws InterruptedException, ExecutionException, TimeoutException {
    Map<String, String> replicated = Map.of(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, MIN_INSYNC);
    Map<String, String> positions = new HashMap<>(replicated);
    positions.put(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT);
    try (Admin admin = admin()) {
      admin
          .createTopics(
              List.of(
                  new NewTopic(relay.topic(), PARTITIONS, REPLICATION).configs(replicated),
                  new NewTopic(relay.positionsTopic(), relay.shards(), REPLICATION)
                      .configs(positions)))
          .all()
          .get(ADMIN_WITHIN.toSeconds(), TimeUnit.SECONDS);
    }
  }

  /** The relay as the servers run it: bootstrap through the proxies, default topic and shards. */
  KafkaRelayConfig relay() {
    return relay;
  }

  /** The sync server's flags that turn the relay on. */
  List<String> serverFlags() {
    return List.of(
        "--kafka",
        relay.bootstrap(),
        "--kafka-topic",
        relay.topic(),
        "--kafka-shards",
        Integer.toString(relay.shards()));
  }

  /** For the run's first line. */
  String describe() {
    return BROKERS
        + " KRaft brokers (owned, replication factor "
        + REPLICATION
        + ", min.insync.replicas "
        + MIN_INSYNC
        + ") behind proxies "
        + relay.bootstrap();
  }

  /** SIGKILL broker {@code i}. */
  void killBroker(int i) {
    brokers.kill(i);
  }

  /** Starts broker {@code i} again and waits until the cluster has every broker back. */
  void restartBroker(int i) {
    brokers.restart(i);
  }

  /** Cuts the relay off from every broker ({@code true}) or lets it through again. */
  void partition(boolean on) {
    for (FaultProxy p : proxies) {
      p.partition(on);
    }
  }

  /**
   * The state of the transaction of each of {@code shards}, as the brokers' coordinators see it; a
   * shard that never had one is left out.
   */
  Map<Integer, TransactionState> transactions(Collection<Integer> shards)
      throws InterruptedException, ExecutionException, TimeoutException {
    Map<String, Integer> ids = new HashMap<>();
    for (int s : shards) {
      ids.put(relay.transactionalId(s), s);
    }
    Map<Integer, TransactionState> out = new HashMap<>();
    if (ids.isEmpty()) {
      return out;
    }
    try (Admin admin = admin()) {
      DescribeTransactionsResult r = admin.describeTransactions(ids.keySet());
      for (Map.Entry<String, Integer> e : ids.entrySet()) {
        try {
          TransactionDescription t =
              r.description(e.getKey()).get(ADMIN_WITHIN.toSeconds(), TimeUnit.SECONDS);
          out.put(e.getValue(), t.state());
        } catch (ExecutionException notFound) {
          // no transaction under that id yet (the shard never published): none is open
        }
      }
    }
    return out;
  }

  /** The reference consumer's verdict on the topic against {@code feed}, read directly. */
  TopicCheck.Report check(ConfirmedFeed feed) {
    return TopicCheck.check(brokers.directBootstrap(), relay.topic(), feed, Duration.ofMinutes(2));
  }

  @Override
  public void close() throws IOException {
    brokers.close();
    for (FaultProxy p : proxies) {
      p.close();
    }
  }
}
