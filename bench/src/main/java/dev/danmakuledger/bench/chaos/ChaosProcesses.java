package dev.danmakuledger.bench.chaos;

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
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The processes of a chaos run, which the harness owns and may kill: a redis-server, optionally a
 * mariadbd, the sync server and the edge agents (child JVMs), and the {@link FaultProxy} between
 * the agents and the server. Each restarts as the same program on the same port and data.
 */
final class ChaosProcesses implements AutoCloseable {
  private final Path root;
  private final String classpath;
  private final PrintStream log;
  private final List<Child> agents = new ArrayList<>();
  private final List<String> deviceIds = new ArrayList<>();
  private final List<Path> agentDirs = new ArrayList<>();
  private Child redis;
  private OwnedMariaDb mariadb;
  private Child server;
  private int serverPort;
  private int redisPort;
  private FaultProxy proxy;
  private LedgerClient direct;
  private String enrollToken;

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

  void startRedis() throws IOException, InterruptedException {
    redisPort = freePort();
    Path binary = RedisBinary.find();
    redis =
        new Child(
            "redis",
            List.of(
                binary.toString(),
                "--port",
                Integer.toString(redisPort),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no"),
            root.resolve("redis.log"));
    redis.start();
    waitForRedis();
  }

  void startServer(FreshDatabase db) throws Exception {
    serverPort = freePort();
    Path data = root.resolve("server");
    List<String> cmd = new ArrayList<>(javaCommand("512m"));
    cmd.addAll(
        List.of(
            "dev.danmakuledger.server.Main",
            "--data-dir",
            data.toString(),
            "--port",
            Integer.toString(serverPort),
            "--redis",
            "redis://127.0.0.1:" + redisPort,
            "--no-review"));
    if (!db.embedded()) {
      cmd.addAll(List.of("--jdbc", db.url()));
    }
    server = new Child("sync-server", cmd, root.resolve("server.log"));
    server.start();
    direct = new LedgerClient(URI.create("http://127.0.0.1:" + serverPort), Duration.ofSeconds(10));
    waitReady(Duration.ofSeconds(90));
    enrollToken = Files.readString(data.resolve("enroll.token"), StandardCharsets.UTF_8).strip();
  }

  void startProxy(double dropRate, double loseRate, long seed) throws IOException {
    proxy =
        new FaultProxy(new InetSocketAddress("127.0.0.1", serverPort), dropRate, loseRate, seed);
  }

  /** Starts agent process {@code deviceId}, capturing into {@code rooms} through the proxy. */
  void startAgent(String deviceId, List<String> rooms, double rate, long seed) throws IOException {
    Path dir = root.resolve("agents").resolve(deviceId);
    Files.createDirectories(dir);
    List<String> cmd = new ArrayList<>(javaCommand("160m"));
    cmd.addAll(
        List.of(
            ChaosAgent.class.getName(),
            dir.toString(),
            deviceId,
            "http://127.0.0.1:" + proxy.port(),
            enrollToken,
            String.join(",", rooms),
            Double.toString(rate),
            Long.toString(seed)));
    Child c = new Child(deviceId, cmd, root.resolve(deviceId + ".log"));
    c.start();
    agents.add(c);
    deviceIds.add(deviceId);
    agentDirs.add(dir);
  }

  Child server() {
    return server;
  }

  Child redis() {
    return redis;
  }

  /** The harness-owned MariaDB, or null when the server uses H2 or a database it does not own. */
  OwnedMariaDb mariadb() {
    return mariadb;
  }

  List<Child> agents() {
    return agents;
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

  int redisPort() {
    return redisPort;
  }

  /** The server's URL, bypassing the proxy. */
  String serverUrl() {
    return "http://127.0.0.1:" + serverPort;
  }

  /** A client of the server that bypasses the proxy. */
  LedgerClient direct() {
    return direct;
  }

  void waitForRedis() throws IOException, InterruptedException {
    waitForPort(redisPort, Duration.ofSeconds(20), "redis-server");
  }

  void waitForMariaDb() throws IOException, InterruptedException {
    waitForPort(mariadb.port(), Duration.ofSeconds(60), "mariadbd");
  }

  /** Waits until the server answers {@code /readyz}; fails if its process exits meanwhile. */
  void waitReady(Duration timeout) throws InterruptedException, IOException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      try {
        if (direct.ready()) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      }
      if (!server.alive()) {
        throw new IOException("sync-server exited during start; see " + root.resolve("server.log"));
      }
      Thread.sleep(200);
    }
    throw new IOException("sync-server not ready after " + timeout);
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

  private List<String> javaCommand(String heap) {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    return List.of(
        java, "-Xmx" + heap, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", classpath);
  }

  /** Stops every process; a failure to stop one is logged and the others are still stopped. */
  @Override
  public void close() {
    for (Child c : agents) {
      quietly(() -> c.kill());
    }
    if (server != null) {
      quietly(() -> server.signal(false));
      quietly(() -> server.stop(20));
    }
    if (proxy != null) {
      quietly(() -> proxy.close());
    }
    if (redis != null) {
      quietly(() -> redis.kill());
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
