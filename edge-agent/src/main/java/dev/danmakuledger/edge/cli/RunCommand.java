package dev.danmakuledger.edge.cli;

import dev.danmakuledger.edge.EdgeAgent;
import dev.danmakuledger.edge.api.IngestServer;
import dev.danmakuledger.edge.retention.Pruner;
import dev.danmakuledger.edge.retention.RetentionDaemon;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code edge-agent run}: the daemon with the local ingest API. */
@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    description = {
      "Run the agent: own the data directory and serve the local ingest API on loopback"
          + " (POST /v1/danmaku, GET /v1/status, GET /metrics) until stopped (SIGTERM / Ctrl-C).",
      "Once enrolled (`edge-agent enroll`), also syncs to the server in the background.",
      "With a retention set at init, prunes covered records every 10 minutes."
    })
final class RunCommand implements Callable<Integer>, EdgeAgentMain.ClockAware {
  @Spec CommandSpec spec;
  @Mixin DataDirOption dir;
  @Mixin SyncCommand.Options sync;

  @Option(
      names = "--listen",
      defaultValue = "127.0.0.1:7070",
      paramLabel = "HOST:PORT",
      description = "Loopback address of the local API (default: ${DEFAULT-VALUE}; port 0 = any).")
  String listen;

  private Clock clock;

  @Override
  public void clock(Clock clock) {
    this.clock = clock;
  }

  @Override
  public Integer call() throws Exception {
    InetSocketAddress bind = parse(listen);
    sync.settings(SyncCommand.RUN_LINGER); // usage errors before anything opens
    EdgeAgent agent = EdgeAgent.open(dir.dataDir, clock);
    IngestServer server;
    AutoCloseable syncing;
    try {
      server =
          IngestServer.start(bind, agent.capture(), agent.store(), agent.config().maxStoreBytes());
      agent.advertise(server.hostPort());
      AutoCloseable sending =
          SyncCommand.background(agent, sync, clock, spec.commandLine().getOut());
      if (agent.config().prunes()) {
        RetentionDaemon retention =
            RetentionDaemon.start(new Pruner(agent.store(), clock), agent.config().retention());
        syncing =
            () -> {
              try {
                retention.close();
              } finally {
                sending.close();
              }
            };
      } else {
        syncing = sending;
      }
    } catch (Exception e) {
      agent.close();
      throw e;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Thread hook =
        new Thread(
            () -> {
              try {
                syncing.close();
              } catch (Exception e) {
                spec.commandLine().getErr().println("edge-agent: stopping sync: " + e.getMessage());
              }
              server.close();
              try {
                agent.close();
              } catch (Exception e) {
                spec.commandLine().getErr().println("edge-agent: shutdown: " + e.getMessage());
              }
              stopped.countDown();
            },
            "edge-agent-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    PrintWriter out = spec.commandLine().getOut();
    out.printf(
        "edge-agent %s listening on http://%s (data dir %s)%n",
        agent.identity().deviceId(), server.hostPort(), dir.dataDir);
    out.flush();
    stopped.await();
    return ExitCodes.OK;
  }

  static InetSocketAddress parse(String hostPort) {
    int colon = hostPort.lastIndexOf(':');
    if (colon <= 0 || colon == hostPort.length() - 1) {
      throw new IllegalArgumentException("--listen: got " + hostPort + ", want HOST:PORT");
    }
    int port;
    try {
      port = Integer.parseInt(hostPort.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "--listen port: got " + hostPort.substring(colon + 1) + ", want 0..65535", e);
    }
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("--listen port: got " + port + ", want 0..65535");
    }
    String host = hostPort.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    return new InetSocketAddress(host, port);
  }
}
