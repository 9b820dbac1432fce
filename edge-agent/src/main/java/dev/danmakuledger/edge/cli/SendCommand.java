package dev.danmakuledger.edge.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.danmakuledger.edge.EdgeAgent;
import dev.danmakuledger.edge.capture.CaptureAck;
import dev.danmakuledger.edge.capture.CaptureRequest;
import dev.danmakuledger.edge.config.AgentConfig;
import dev.danmakuledger.edge.store.StoreLockedException;
import dev.danmakuledger.protocol.key.IdempotencyKey;
import dev.danmakuledger.protocol.wire.Json;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code edge-agent send}: captures one danmaku. When a running agent owns the data directory, the
 * capture goes through its local API instead.
 */
@Command(
    name = "send",
    mixinStandardHelpOptions = true,
    description = {
      "Capture one danmaku (durable before this command returns).",
      "Without --key a fresh key deviceId:user:unixMillis:nonce is generated; with --key it is"
          + " validated, and a repeat returns the original ack.",
      "If `edge-agent run` owns the data directory, the capture is sent to its local API."
    })
final class SendCommand implements Callable<Integer>, EdgeAgentMain.ClockAware {
  @Spec CommandSpec spec;
  @Mixin DataDirOption dir;

  @Option(
      names = "--room",
      required = true,
      paramLabel = "ROOM",
      description = "Room, 1..64 of [A-Za-z0-9_.-].")
  String room;

  @Option(
      names = "--user",
      required = true,
      paramLabel = "USER",
      description = "User id, 1..64 of [A-Za-z0-9_-].")
  String user;

  @Option(
      names = "--key",
      paramLabel = "KEY",
      description = "Idempotency key deviceId:userId:unixMillis:nonce.")
  String key;

  @Option(
      names = "--color",
      defaultValue = "16777215",
      paramLabel = "RGB",
      description = "Colour 0..16777215 (default: ${DEFAULT-VALUE}, white).")
  int color;

  @Option(
      names = "--mode",
      defaultValue = "1",
      paramLabel = "MODE",
      description = "Display mode 1..8 (default: ${DEFAULT-VALUE}, scrolling).")
  int mode;

  @Option(
      names = "--font-size",
      defaultValue = "25",
      paramLabel = "SIZE",
      description = "Font size 1..255 (default: ${DEFAULT-VALUE}).")
  int fontSize;

  @Option(
      names = "--playback-ms",
      paramLabel = "MS",
      description = "Position in the video, milliseconds.")
  Long playbackMs;

  @Parameters(index = "0", paramLabel = "TEXT", description = "The message, 1..300 characters.")
  String text;

  private Clock clock;

  @Override
  public void clock(Clock clock) {
    this.clock = clock;
  }

  @Override
  public Integer call() throws Exception {
    AgentConfig config = AgentConfig.load(dir.dataDir);
    IdempotencyKey k =
        key == null
            ? IdempotencyKey.generate(config.deviceId(), user, clock, new SecureRandom())
            : IdempotencyKey.parse(key);
    CaptureRequest request =
        new CaptureRequest(k, room, user, text, playbackMs, mode, color, fontSize);
    request.draft(config.deviceId());
    CaptureAck ack;
    try (EdgeAgent agent = EdgeAgent.open(dir.dataDir, clock)) {
      ack = agent.capture().capture(request);
    } catch (StoreLockedException locked) {
      if (locked.apiAddress().isEmpty()) {
        throw locked;
      }
      return viaApi(locked.apiAddress().get(), request);
    }
    print(ack);
    return ExitCodes.OK;
  }

  private void print(CaptureAck ack) {
    PrintWriter out = spec.commandLine().getOut();
    out.printf(
        "%s index=%d key=%s captured=%s%s%n",
        ack.repeat() ? "repeat (original ack)" : "captured",
        ack.index(),
        ack.idempotencyKey(),
        Instant.ofEpochMilli(ack.capturedAt()),
        ack.outcome() == null ? "" : " outcome=" + ack.outcome() + " seq=" + ack.seq());
  }

  private int viaApi(String address, CaptureRequest r) throws IOException, InterruptedException {
    ObjectMapper json = Json.mapper();
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("idempotencyKey", r.key().toString());
    body.put("room", r.room());
    body.put("user", r.user());
    body.put("text", r.text());
    if (r.playbackMs() != null) {
      body.put("playbackMs", r.playbackMs());
    }
    body.put("mode", r.mode());
    body.put("color", r.color());
    body.put("fontSize", r.fontSize());
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create("http://" + address + "/v1/danmaku"))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(json.writeValueAsBytes(body)))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    int status = response.statusCode();
    if (status == 200 || status == 201) {
      print(json.readValue(response.body(), CaptureAck.class));
      return ExitCodes.OK;
    }
    spec.commandLine()
        .getErr()
        .println(
            "edge-agent: the running agent at "
                + address
                + " answered "
                + status
                + ": "
                + response.body());
    return switch (status) {
      case 422 -> ExitCodes.FAILED;
      case 507 -> ExitCodes.STORE_FULL;
      case 400, 413 -> ExitCodes.USAGE;
      default -> ExitCodes.IO_ERROR;
    };
  }
}
