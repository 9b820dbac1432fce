package dev.danmakuledger.bench.chaos;

import dev.danmakuledger.bench.ingest.Dirs;
import dev.danmakuledger.bench.ingest.FreshDatabase;
import dev.danmakuledger.bench.ingest.LedgerClient;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The processes of a chaos run, which the harness owns and may kill: two redis-servers (primary and
 * replica, {@link RedisNodes}) behind a TCP proxy or a six-node Redis Cluster ({@link
 * RedisClusterNodes}), optionally a mariadbd, the sync servers (one on H2; two or more when they
 * share a MariaDB) as child JVMs, the edge agents (child JVMs, cloned devices included), the {@link
 * FaultProxy} the agents connect to — itself the balancer, or in front of an HAProxy ({@link
 * HaproxyBalancer}) —, with {@code --kafka} the Kafka brokers of the servers' relays ({@link
 * ChaosKafka}), and the room-stream subscribers ({@link StreamSubscriber}) attached to every server
 * directly. Each process restarts as the same program on the same port and data.
 */
final class ChaosProcesses implements AutoCloseable {
  /** A device whose data directory was copied: the original and the clone both run. */
  record ClonePair(String deviceId, Path original, Path copy) {}

  private final Path root;
  private final String classpath;
  private final PrintStream log;
  private final List<Child> agents = new ArrayList<>();
  private final List<String> deviceIds = new ArrayList<>();
  private final List<Path> agentDirs = new ArrayList<>();
  private final List<Child> cloneChildren = new ArrayList<>();
  private final List<ClonePair> clones = new ArrayList<>();
  private final List<Child> servers = new ArrayList<>();
  private final List<LedgerClient> clients = new ArrayList<>();
  private final List<Integer> serverPorts = new ArrayList<>();
  private final List<StreamSubscriber> subscribers = new ArrayList<>();
  private RedisNodes redis;
  private RedisClusterNodes redisCluster;
  private FaultProxy redisProxy;
  private HaproxyBalancer balancer;
  private OwnedMariaDb mariadb;
  private ChaosKafka kafka;
  private FaultProxy proxy;
  private String enrollToken;
  private String agentRooms;
  private double agentRate;

  /**
   * @param classpath the class path of the child JVMs: one holding the bench module and its
   *     dependencies
   */
  ChaosProcesses(Path root, String classpath, PrintStream log) {
    this.root = root;
    this.classpath = classpath;
    this.log = log;
  }

  /** Starts a MariaDB the harness owns (and may restart as a fault); returns its URL. */
  String startMariaDb() throws IOException, InterruptedException {
    mariadb = OwnedMariaDb.start(root.resolve("mariadb"), freePort());
    waitForPort(mariadb.port(), Duration.ofSeconds(60), "mariadbd");
    return mariadb.url();
  }

  /** Starts the Redis primary and its replica, and the proxy the servers reach Redis through. */
  void startRedis() throws IOException, InterruptedException {
    redis =
        onFreePorts(
            "redis",
            2,
            ports -> {
              RedisNodes nodes = new RedisNodes(root, ports.get(0), ports.get(1));
              nodes.start();
              return nodes;
            });
    redisProxy = new FaultProxy(redisAddress(redis.primaryPort()), 0, 0, 0);
  }

  /**
   * Starts a Redis Cluster of three masters with a replica each; the servers get every node as a
   * seed and follow the cluster's own failovers (no proxy: cluster clients talk to every node).
   */
  void startRedisCluster() throws IOException, InterruptedException {
    redisCluster =
        onFreePorts(
            "redis cluster",
            6,
            ports -> {
              RedisClusterNodes nodes = new RedisClusterNodes(root, ports);
              nodes.start();
              return nodes;
            });
  }

  /** Starts something on ports it is given; a start that fails leaves nothing running. */
  private interface PortsStart<T> {
    T start(List<Integer> ports) throws IOException, InterruptedException;
  }

  /**
   * Starts {@code start} on {@code count} ports picked free. A port picked free can be taken again
   * before a child binds it (by another process, or as the local port of an outgoing connection),
   * so a start that failed is tried twice more on other ports.
   */
  private <T> T onFreePorts(String what, int count, PortsStart<T> start)
      throws IOException, InterruptedException {
    for (int attempt = 1; ; attempt++) {
      try {
        return start.start(freePorts(count));
      } catch (IOException e) {
        if (attempt == 3) {
          throw e;
        }
        log.println("chaos: " + what + " did not start (" + e.getMessage() + "); on other ports");
      }
    }
  }

  /**
   * Starts the Kafka brokers the servers' relays publish to ({@link ChaosKafka}); before {@link
   * #startServers}, which then turns the relay on.
   */
  void startKafka(long seed) throws Exception {
    kafka = ChaosKafka.start(root.resolve("kafka"), classpath, seed);
  }

  /** The Kafka brokers of the relay, or null when the run has none. */
  ChaosKafka kafka() {
    return kafka;
  }

  /** What Redis the servers use, for the run's first line. */
  String describeRedis() {
    if (redisCluster != null) {
      return "Redis Cluster of 3 masters + 3 replicas " + redisCluster.ports() + " (owned)";
    }
    return "Redis primary :"
        + redis.primaryPort()
        + " + replica :"
        + redis.replicaPort()
        + " (owned) behind proxy :"
        + redisProxy.port();
  }

  /**
   * Starts {@code count} sync servers on the same Redis (through its proxy) and database; the
   * second gets the first one's tokens and keys, as instances of one deployment share them.
   *
   * @param gapSealAfter the servers' {@code --gap-seal-after}
   */
  void startServers(FreshDatabase db, int count, Duration gapSealAfter) throws Exception {
    for (int i = 0; i < count; i++) {
      int port = freePort();
      Path data = root.resolve(i == 0 ? "server" : "server-" + (char) ('a' + i));
      Files.createDirectories(data);
      if (i > 0) {
        Dirs.shareInstanceFiles(root.resolve("server"), data);
      }
      List<String> cmd = new ArrayList<>(javaCommand("384m"));
      cmd.addAll(
          List.of(
              "dev.danmakuledger.server.Main",
              "--data-dir",
              data.toString(),
              "--port",
              Integer.toString(port),
              redisCluster != null ? "--redis-cluster" : "--redis",
              redisCluster != null
                  ? String.join(",", redisCluster.seeds())
                  : "redis://127.0.0.1:" + redisProxy.port(),
              "--gap-seal-after",
              Long.toString(gapSealAfter.toSeconds()),
              "--no-review"));
      if (!db.embedded()) {
        cmd.addAll(List.of("--jdbc", db.url()));
      }
      if (kafka != null) {
        cmd.addAll(kafka.serverFlags());
      }
      String name = "sync-server-" + (char) ('a' + i);
      servers.add(new Child(name, cmd, root.resolve(name + ".log")));
      serverPorts.add(port);
      clients.add(new LedgerClient(URI.create("http://127.0.0.1:" + port), Duration.ofSeconds(10)));
      servers.get(i).start();
      waitReady(i, Duration.ofSeconds(90));
      if (i == 0) {
        enrollToken =
            Files.readString(data.resolve("enroll.token"), StandardCharsets.UTF_8).strip();
      }
    }
  }

  /**
   * Starts the fault proxy the agents connect to: in front of the servers themselves, or, with
   * {@code haproxy}, in front of an HAProxy that balances them (a hedge still goes to two servers
   * directly).
   */
  void startProxy(double dropRate, double loseRate, long seed, boolean haproxy)
      throws IOException, InterruptedException {
    List<InetSocketAddress> servers = new ArrayList<>();
    for (int port : serverPorts) {
      servers.add(new InetSocketAddress("127.0.0.1", port));
    }
    if (!haproxy) {
      proxy = new FaultProxy(servers, dropRate, loseRate, seed);
      return;
    }
    balancer =
        HaproxyBalancer.start(new HaproxyConfig(freePort(), serverPorts), root.resolve("haproxy"));
    waitForPort(balancer.port(), Duration.ofSeconds(20), "haproxy");
    proxy =
        new FaultProxy(
            List.of(new InetSocketAddress("127.0.0.1", balancer.port())), dropRate, loseRate, seed);
    if (servers.size() >= 2) {
      proxy.setHedgeTargets(servers);
    }
  }

  /** The harness-owned HAProxy, or null when the fault proxy balances. */
  HaproxyBalancer balancer() {
    return balancer;
  }

  /** Subscribes to every room's stream on every server, directly (not through a balancer). */
  void startSubscribers(List<String> rooms) {
    for (int i = 0; i < serverPorts.size(); i++) {
      for (String room : rooms) {
        StreamSubscriber s =
            new StreamSubscriber(
                servers.get(i).name() + "/" + room.substring(room.lastIndexOf('-') + 1),
                room,
                serverPorts,
                i);
        subscribers.add(s);
        s.start();
      }
    }
  }

  List<StreamSubscriber> subscribers() {
    return subscribers;
  }

  RedisClusterNodes redisCluster() {
    return redisCluster;
  }

  /** Starts agent process {@code deviceId}, capturing into {@code rooms} through the proxy. */
  void startAgent(String deviceId, List<String> rooms, double rate, long seed) throws IOException {
    agentRooms = String.join(",", rooms);
    agentRate = rate;
    Path dir = root.resolve("agents").resolve(deviceId);
    Files.createDirectories(dir);
    agents.add(agentChild(deviceId, dir, deviceId, seed));
    agents.get(agents.size() - 1).start();
    deviceIds.add(deviceId);
    agentDirs.add(dir);
  }

  /**
   * Starts a device of its own that is about to be cloned, capturing and syncing like the others;
   * {@link #cloneDevice} copies it.
   */
  Child startCloneSource(String deviceId, long seed) throws IOException {
    Path dir = cloneSourceDir(deviceId);
    Files.createDirectories(dir);
    Child c = agentChild(deviceId, dir, deviceId + "-original", seed);
    cloneChildren.add(c);
    c.start();
    return c;
  }

  /** The data directory of the device {@link #startCloneSource} started. */
  Path cloneSourceDir(String deviceId) {
    return root.resolve("clones").resolve(deviceId).resolve("original");
  }

  /**
   * Copies the stopped {@code source}'s data directory (store, keys, enrolment) to a second one and
   * starts both: two processes now append to one device log, each its own records.
   */
  ClonePair cloneDevice(String deviceId, Child source, long seed) throws IOException {
    Path original = root.resolve("clones").resolve(deviceId).resolve("original");
    Path clone = root.resolve("clones").resolve(deviceId).resolve("clone");
    copyTree(original, clone);
    Child twin = agentChild(deviceId, clone, deviceId + "-clone", seed);
    cloneChildren.add(twin);
    source.start();
    twin.start();
    ClonePair pair = new ClonePair(deviceId, original, clone);
    clones.add(pair);
    return pair;
  }

  private Child agentChild(String deviceId, Path dir, String name, long seed) {
    List<String> cmd = new ArrayList<>(javaCommand("160m"));
    cmd.addAll(
        List.of(
            ChaosAgent.class.getName(),
            dir.toString(),
            deviceId,
            proxyUrl(),
            enrollToken,
            agentRooms,
            Double.toString(agentRate),
            Long.toString(seed)));
    return new Child(name, cmd, root.resolve(name + ".log"));
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path p : (Iterable<Path>) files::iterator) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target, StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
  }

  /** The enrolment token the servers share. */
  String enrollToken() {
    return enrollToken;
  }

  List<Child> servers() {
    return servers;
  }

  /** The servers' HTTP ports, in the order of {@link #servers()}. */
  List<Integer> serverPorts() {
    return serverPorts;
  }

  /** The servers' Redis primary and replica, or null on a Redis Cluster. */
  RedisNodes redis() {
    return redis;
  }

  /** Points the servers' Redis proxy at {@code port} and cuts what it has open. */
  void repointRedis(int port) {
    redisProxy.setTargets(redisAddress(port));
    redisProxy.cutAll();
  }

  /** The harness-owned MariaDB, or null when the server uses H2 or a database it does not own. */
  OwnedMariaDb mariadb() {
    return mariadb;
  }

  List<Child> agents() {
    return agents;
  }

  /** Every process of a cloned device, originals and clones. */
  List<Child> cloneChildren() {
    return cloneChildren;
  }

  List<ClonePair> clones() {
    return clones;
  }

  List<String> deviceIds() {
    return deviceIds;
  }

  List<Path> agentDirs() {
    return agentDirs;
  }

  FaultProxy proxy() {
    return proxy;
  }

  /** The URL agents use: the fault proxy in front of the servers. */
  String proxyUrl() {
    return "http://127.0.0.1:" + proxy.port();
  }

  /** A client of the first server that bypasses the proxy. */
  LedgerClient direct() {
    return clients.get(0);
  }

  void waitForMariaDb() throws IOException, InterruptedException {
    waitForPort(mariadb.port(), Duration.ofSeconds(60), "mariadbd");
  }

  /** Waits until server {@code i} answers {@code /readyz}; fails if its process exits meanwhile. */
  void waitReady(int i, Duration timeout) throws InterruptedException, IOException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      try {
        if (clients.get(i).ready()) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      }
      if (!servers.get(i).alive()) {
        throw new IOException(
            servers.get(i).name()
                + " exited during start; see "
                + root.resolve(servers.get(i).name() + ".log"));
      }
      Thread.sleep(200);
    }
    throw new IOException(servers.get(i).name() + " not ready after " + timeout);
  }

  private static List<InetSocketAddress> redisAddress(int port) {
    return List.of(new InetSocketAddress("127.0.0.1", port));
  }

  private static void waitForPort(int port, Duration timeout, String what)
      throws InterruptedException, IOException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      try {
        new Socket("127.0.0.1", port).close();
        return;
      } catch (IOException e) {
        Thread.sleep(100);
      }
    }
    throw new IOException(what + " did not listen on " + port + " within " + timeout);
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** {@code n} distinct ports that were free a moment ago. */
  private static List<Integer> freePorts(int n) throws IOException {
    List<Integer> ports = new ArrayList<>();
    while (ports.size() < n) {
      int port = freePort();
      if (!ports.contains(port)) {
        ports.add(port);
      }
    }
    return ports;
  }

  private List<String> javaCommand(String heap) {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    return List.of(
        java, "-Xmx" + heap, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", classpath);
  }

  /** Stops every process; a failure to stop one is logged and the others are still stopped. */
  @Override
  public void close() {
    for (StreamSubscriber s : subscribers) {
      quietly(s::close);
    }
    for (Child c : agents) {
      quietly(c::kill);
    }
    for (Child c : cloneChildren) {
      quietly(c::kill);
    }
    for (Child s : servers) {
      quietly(() -> s.signal(false));
      quietly(() -> s.stop(20));
    }
    if (proxy != null) {
      quietly(proxy::close);
    }
    if (redisProxy != null) {
      quietly(redisProxy::close);
    }
    if (balancer != null) {
      quietly(balancer::stop);
    }
    if (redis != null) {
      quietly(redis::stop);
    }
    if (redisCluster != null) {
      quietly(redisCluster::stop);
    }
    if (kafka != null) {
      quietly(kafka::close);
    }
    if (mariadb != null) {
      quietly(() -> mariadb.process().stop(30));
    }
  }

  private interface Step {
    void run() throws Exception;
  }

  private void quietly(Step s) {
    try {
      s.run();
    } catch (Exception e) {
      log.println("chaos: cleanup: " + e);
    }
  }
}
