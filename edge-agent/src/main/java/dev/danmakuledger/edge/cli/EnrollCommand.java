package dev.danmakuledger.edge.cli;

import dev.danmakuledger.edge.config.AgentConfig;
import dev.danmakuledger.edge.keys.DeviceIdentity;
import dev.danmakuledger.edge.store.PrivateFiles;
import dev.danmakuledger.edge.sync.Enrollment;
import dev.danmakuledger.edge.sync.ServerLink;
import dev.danmakuledger.edge.sync.SyncClient;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.Callable;
import okhttp3.OkHttpClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code edge-agent enroll}: registers the device key with a sync server (docs/sync.md). */
@Command(
    name = "enroll",
    mixinStandardHelpOptions = true,
    description =
        "Register this device's public key with a sync server, using the operator's enrolment"
            + " token, and remember the server (D/server.properties) for `sync` and `run`.")
final class EnrollCommand implements Callable<Integer>, EdgeAgentMain.ClockAware {
  @Spec CommandSpec spec;
  @Mixin DataDirOption dir;

  @Option(
      names = "--server",
      required = true,
      paramLabel = "URL",
      description = "The sync server, e.g. http://127.0.0.1:8080.")
  String server;

  @Option(
      names = "--token-file",
      required = true,
      paramLabel = "FILE",
      description = "File holding the enrolment token (the server's enroll.token).")
  Path tokenFile;

  private Clock clock;

  @Override
  public void clock(Clock clock) {
    this.clock = clock;
  }

  @Override
  public Integer call() throws Exception {
    AgentConfig config = AgentConfig.load(dir.dataDir);
    DeviceIdentity identity = DeviceIdentity.load(dir.dataDir, config.deviceId());
    PrivateFiles.requireOwnerOnly(tokenFile, "enrolment token file");
    String token;
    try {
      token = Files.readString(tokenFile, StandardCharsets.UTF_8).strip();
    } catch (NoSuchFileException e) {
      throw new NoSuchFileException(tokenFile.toString(), null, "no enrolment token file");
    }
    if (token.isEmpty()) {
      throw new IllegalArgumentException("--token-file " + tokenFile + ": got an empty file");
    }
    OkHttpClient http = SyncClient.defaultHttp();
    try {
      ServerLink link =
          Enrollment.enroll(new SyncClient(http, server, clock), identity, token, dir.dataDir);
      PrintWriter out = spec.commandLine().getOut();
      out.printf(
          "enrolled %s at %s; receipts are checked with %s%n",
          identity.deviceId(), link.serverUrl(), link.serverVerifierKey());
      return ExitCodes.OK;
    } finally {
      http.dispatcher().executorService().shutdown();
      http.connectionPool().evictAll();
    }
  }
}
