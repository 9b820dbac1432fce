package dev.danmakuledger.server.kafka;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Properties;
import java.util.StringJoiner;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.IntUnaryOperator;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * A local Apache Kafka cluster for tests, benchmarks and trying the relay out (docs/kafka.md,
 * "Set-up"): each broker is the real {@code kafka.Kafka} in KRaft combined mode (broker and
 * controller in one process), a child JVM on free loopback ports ({@link Jvm#SMALL} unless asked
 * otherwise), its storage formatted before the first start. The broker's classes must be on the
 * class path given (by default this JVM's): {@code org.apache.kafka:kafka_2.13}. Brokers can be
 * killed with SIGKILL and started again on the same ports and storage.
 *
 * <p>Each broker has two listeners: one for clients, which may advertise another port than it
 * listens on (a proxy that stands between the clients and the broker, as a chaos run's fault proxy
 * does), and one for the brokers among themselves, which also serves whoever must reach the brokers
 * past such a proxy ({@link #directBootstrap()}).
 */
public final class LocalKafka implements AutoCloseable {
  private static final Duration READY_WITHIN = Duration.ofSeconds(90);
  private static final String READY_LINE = "Kafka Server started";

  /** The JVM a broker runs in. */
  public enum Jvm {
    /**
     * For tests and short runs: a 256 MiB heap, the serial collector and the C1 compiler only —
     * quick to start and small beside the JVMs under test.
     */
    SMALL("-Xms64m", "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"),
    /**
     * As Kafka's own start scripts run a broker: a 1 GiB heap, G1 with 20 ms pause goals and both
     * JIT compilers.
     */
    SERVER(
        "-Xms1g",
        "-Xmx1g",
        "-XX:+UseG1GC",
        "-XX:MaxGCPauseMillis=20",
        "-XX:InitiatingHeapOccupancyPercent=35");

    private final List<String> options;

    Jvm(String... options) {
      this.options = List.of(options);
    }
  }

  private final Path dir;
  private final String classPath;
  private final Jvm jvm;
  private final int[] ports;
  private final int[] advertisedPorts;
  private final int[] brokerPorts;
  private final int[] controllerPorts;
  private final Process[] processes;

  private LocalKafka(Path dir, String classPath, Jvm jvm, int brokers) {
    this.dir = dir;
    this.classPath = classPath;
    this.jvm = jvm;
    this.ports = new int[brokers];
    this.advertisedPorts = new int[brokers];
    this.brokerPorts = new int[brokers];
    this.controllerPorts = new int[brokers];
    this.processes = new Process[brokers];
  }

  /**
   * Formats and starts {@code brokers} brokers (1 or 3) under {@code dir}, and waits until each
   * reports it started; internal topics take a replication factor of {@code min(brokers, 3)}.
   */
  public static LocalKafka start(Path dir, int brokers) {
    return start(dir, brokers, Jvm.SMALL);
  }

  /** As {@link #start(Path, int)}, each broker in a JVM of the kind {@code jvm}. */
  public static LocalKafka start(Path dir, int brokers, Jvm jvm) {
    return start(dir, brokers, System.getProperty("java.class.path"), port -> port, jvm);
  }

  /** As {@link #start(Path, int)}, with the broker's class path given. */
  public static LocalKafka start(Path dir, int brokers, String classPath) {
    return start(dir, brokers, classPath, port -> port);
  }

  /**
   * As {@link #start(Path, int, String)}, with the clients' port of each broker advertised as
   * {@code advertise} maps it: called once per broker, before it starts, with the port its client
   * listener listens on, it returns the port clients are told to connect to instead (on 127.0.0.1).
   */
  public static LocalKafka start(
      Path dir, int brokers, String classPath, IntUnaryOperator advertise) {
    return start(dir, brokers, classPath, advertise, Jvm.SMALL);
  }

  private static LocalKafka start(
      Path dir, int brokers, String classPath, IntUnaryOperator advertise, Jvm jvm) {
    if (brokers != 1 && brokers != 3) {
      throw new IllegalArgumentException("brokers: got " + brokers + ", want 1 or 3");
    }
    LocalKafka k = new LocalKafka(dir.toAbsolutePath(), classPath, jvm, brokers);
    try {
      for (int i = 0; i < brokers; i++) {
        k.ports[i] = freePort();
        k.brokerPorts[i] = freePort();
        k.controllerPorts[i] = freePort();
      }
      for (int i = 0; i < brokers; i++) {
        k.advertisedPorts[i] = advertise.applyAsInt(k.ports[i]);
      }
      String clusterId = clusterId();
      for (int i = 0; i < brokers; i++) {
        k.format(i, clusterId);
      }
      for (int i = 0; i < brokers; i++) {
        k.launch(i);
      }
      for (int i = 0; i < brokers; i++) {
        k.awaitReady(i);
      }
      k.awaitCluster();
      return k;
    } catch (RuntimeException e) {
      k.close();
      throw e;
    }
  }

  /**
   * The bootstrap servers for clients, {@code 127.0.0.1:port,...}: the brokers' client listeners,
   * which tell clients to connect to the advertised ports.
   */
  public String bootstrap() {
    return addresses(ports);
  }

  /**
   * The bootstrap servers of the brokers' own listener, which advertises itself: clients that start
   * here talk to the brokers directly, past whatever stands behind the advertised client ports.
   */
  public String directBootstrap() {
    return addresses(brokerPorts);
  }

  private static String addresses(int[] ports) {
    StringJoiner j = new StringJoiner(",");
    for (int p : ports) {
      j.add("127.0.0.1:" + p);
    }
    return j.toString();
  }

  /** How many brokers the cluster has. */
  public int size() {
    return ports.length;
  }

  /** Kills broker {@code i} with SIGKILL and waits until it is gone. */
  public void kill(int i) {
    Process p = processes[i];
    if (p == null) {
      return;
    }
    p.destroyForcibly();
    try {
      p.waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    processes[i] = null;
  }

  /** Starts broker {@code i} again (after {@link #kill}) and waits until it is ready. */
  public void restart(int i) {
    if (processes[i] != null && processes[i].isAlive()) {
      throw new IllegalStateException("broker " + i + " is running");
    }
    launch(i);
    awaitReady(i);
    awaitCluster();
  }

  /** Waits until every broker is registered and a client can create a topic on the cluster. */
  private void awaitCluster() {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, directBootstrap());
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2_000);
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 3_000);
    long deadline = System.nanoTime() + READY_WITHIN.toNanos();
    String last = "";
    try (Admin admin = Admin.create(p)) {
      while (System.nanoTime() < deadline) {
        try {
          int nodes = admin.describeCluster().nodes().get(3, TimeUnit.SECONDS).size();
          if (nodes == ports.length) {
            return;
          }
          last = nodes + " of " + ports.length + " brokers registered";
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
          last = e.toString();
        }
        Thread.sleep(100);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted waiting for the cluster", e);
    }
    throw new IllegalStateException("cluster not ready within " + READY_WITHIN + ": " + last);
  }

  private Path config(int i) {
    return dir.resolve("broker-" + i + ".properties");
  }

  private Path log(int i) {
    return dir.resolve("broker-" + i + ".log");
  }

  private void format(int i, String clusterId) {
    int rf = Math.min(ports.length, 3);
    StringJoiner voters = new StringJoiner(",");
    for (int n = 0; n < ports.length; n++) {
      voters.add((n + 1) + "@127.0.0.1:" + controllerPorts[n]);
    }
    String props =
        String.join(
            "\n",
            "process.roles=broker,controller",
            "node.id=" + (i + 1),
            "controller.quorum.voters=" + voters,
            "listeners=CLIENT://127.0.0.1:"
                + ports[i]
                + ",BROKER://127.0.0.1:"
                + brokerPorts[i]
                + ",CONTROLLER://127.0.0.1:"
                + controllerPorts[i],
            "advertised.listeners=CLIENT://127.0.0.1:"
                + advertisedPorts[i]
                + ",BROKER://127.0.0.1:"
                + brokerPorts[i],
            "controller.listener.names=CONTROLLER",
            "inter.broker.listener.name=BROKER",
            "listener.security.protocol.map=CLIENT:PLAINTEXT,BROKER:PLAINTEXT,CONTROLLER:PLAINTEXT",
            "log.dirs=" + dir.resolve("data-" + i),
            "num.partitions=4",
            "default.replication.factor=" + rf,
            "min.insync.replicas=" + Math.max(1, rf - 1),
            "offsets.topic.replication.factor=" + rf,
            "offsets.topic.num.partitions=4",
            "transaction.state.log.replication.factor=" + rf,
            "transaction.state.log.min.isr=" + Math.max(1, rf - 1),
            "transaction.state.log.num.partitions=4",
            "share.coordinator.state.topic.replication.factor=" + rf,
            "share.coordinator.state.topic.min.isr=" + Math.max(1, rf - 1),
            "group.initial.rebalance.delay.ms=0",
            "auto.create.topics.enable=false",
            "num.network.threads=2",
            "num.io.threads=2",
            "background.threads=2",
            "log.cleaner.threads=1",
            // a transaction's first send meets CONCURRENT_TRANSACTIONS while the last one's markers
            // are written; the broker retries it itself, after 20 ms by default (docs/kafka.md,
            // "Lag")
            "add.partitions.to.txn.retry.backoff.ms=2",
            "");
    try {
      Files.createDirectories(dir);
      Files.writeString(config(i), props, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + config(i), e);
    }
    Process p =
        run(
            Jvm.SMALL,
            List.of(
                "kafka.tools.StorageTool",
                "format",
                "-t",
                clusterId,
                "-c",
                config(i).toString(),
                "--ignore-formatted"),
            dir.resolve("format-" + i + ".log"));
    try {
      if (!p.waitFor(READY_WITHIN.toSeconds(), TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException("formatting broker " + i + " did not finish");
      }
      if (p.exitValue() != 0) {
        throw new IllegalStateException(
            "formatting broker " + i + " failed: " + tail(dir.resolve("format-" + i + ".log")));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted formatting broker " + i, e);
    }
  }

  private void launch(int i) {
    try {
      Files.deleteIfExists(log(i));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot reset " + log(i), e);
    }
    processes[i] = run(jvm, List.of("kafka.Kafka", config(i).toString()), log(i));
  }

  private Process run(Jvm kind, List<String> mainAndArgs, Path output) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(kind.options);
    cmd.addAll(List.of("-Djava.awt.headless=true", "-cp", classPath));
    cmd.addAll(mainAndArgs);
    try {
      return new ProcessBuilder(cmd)
          .redirectErrorStream(true)
          .redirectOutput(output.toFile())
          .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
          .start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + mainAndArgs.get(0), e);
    }
  }

  private void awaitReady(int i) {
    long deadline = System.nanoTime() + READY_WITHIN.toNanos();
    while (System.nanoTime() < deadline) {
      Process p = processes[i];
      if (!p.isAlive()) {
        throw new IllegalStateException(
            "broker " + i + " exited with " + p.exitValue() + ": " + tail(log(i)));
      }
      if (logged(log(i), READY_LINE)) {
        return;
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted waiting for broker " + i, e);
      }
    }
    throw new IllegalStateException(
        "broker " + i + " not ready within " + READY_WITHIN + ": " + tail(log(i)));
  }

  private static boolean logged(Path file, String line) {
    try {
      return Files.exists(file) && Files.readString(file, StandardCharsets.UTF_8).contains(line);
    } catch (IOException e) {
      return false;
    }
  }

  private static String tail(Path file) {
    try {
      String s = Files.readString(file, StandardCharsets.UTF_8);
      return s.substring(Math.max(0, s.length() - 2000));
    } catch (IOException e) {
      return "(no output: " + e.getMessage() + ")";
    }
  }

  /**
   * A KRaft cluster id: 16 random bytes, URL-safe base64 without padding, not starting with '-'
   * (the storage tool would read such an id as an option).
   */
  static String clusterId() {
    SecureRandom random = new SecureRandom();
    byte[] b = new byte[16];
    String id;
    do {
      random.nextBytes(b);
      id = Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    } while (id.startsWith("-"));
    return id;
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free loopback port", e);
    }
  }

  /** Kills every broker (SIGKILL: their data is scratch). */
  @Override
  public void close() {
    for (int i = 0; i < processes.length; i++) {
      kill(i);
    }
  }
}
