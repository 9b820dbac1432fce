package dev.danmakuledger.demo.harness;

import dev.danmakuledger.edge.EdgeAgent;
import dev.danmakuledger.edge.capture.CaptureService;
import dev.danmakuledger.edge.config.AgentConfig;
import dev.danmakuledger.edge.keys.DeviceIdentity;
import dev.danmakuledger.edge.store.EdgeStore;
import dev.danmakuledger.edge.store.StoredRecord;
import dev.danmakuledger.edge.sync.Backoff;
import dev.danmakuledger.edge.sync.Enrollment;
import dev.danmakuledger.edge.sync.ReceiptVerifier;
import dev.danmakuledger.edge.sync.ServerLink;
import dev.danmakuledger.edge.sync.SyncClient;
import dev.danmakuledger.edge.sync.SyncSettings;
import dev.danmakuledger.edge.sync.Syncer;
import dev.danmakuledger.merkle.checkpoint.NoteVerifier;
import dev.danmakuledger.merkle.compact.CompactRange;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import okhttp3.OkHttpClient;

/**
 * An edge agent running in this JVM ({@link EdgeAgent}, wired as {@code edge-agent run} wires it),
 * plus the sync client. Used by the demo and the end-to-end tests.
 */
public final class EdgeNode implements AutoCloseable {
  private final EdgeAgent agent;

  private EdgeNode(EdgeAgent agent) {
    this.agent = agent;
  }

  /** Initialises a new data directory for {@code deviceId} (like {@code edge-agent init}). */
  public static EdgeNode init(Path dir, String deviceId, Clock clock) throws IOException {
    EdgeAgent.initialise(dir, AgentConfig.defaults(deviceId), clock);
    return open(dir, clock);
  }

  /** Opens an initialised data directory and starts its capture service. */
  public static EdgeNode open(Path dir, Clock clock) throws IOException {
    return new EdgeNode(EdgeAgent.open(dir, clock));
  }

  public String deviceId() {
    return agent.identity().deviceId();
  }

  public Path dir() {
    return agent.dataDir();
  }

  public DeviceIdentity identity() {
    return agent.identity();
  }

  public EdgeStore store() {
    return agent.store();
  }

  public CaptureService capture() {
    return agent.capture();
  }

  public AgentConfig config() {
    return agent.config();
  }

  /** Enrols with the server (real HTTP) and records the link in the data directory. */
  public ServerLink enroll(OkHttpClient http, String serverUrl, String token, Clock clock)
      throws IOException {
    return Enrollment.enroll(new SyncClient(http, serverUrl, clock), identity(), token, dir());
  }

  /**
   * A syncer talking to {@code serverUrl} (which may be a proxy in front of the enrolled server),
   * with real sleeps between retries and a seeded jitter.
   */
  public Syncer syncer(
      OkHttpClient http, String serverUrl, NoteVerifier serverKey, SyncSettings s, Clock clock) {
    Random random = new Random(deviceId().hashCode());
    return Syncer.builder(
            store(),
            identity(),
            new SyncClient(http, serverUrl, clock),
            ReceiptVerifier.legacyOnly(serverKey),
            clock)
        .settings(s)
        .backoff(new Backoff(s.backoffBase(), s.backoffCap(), random::nextDouble))
        .metadata(() -> Syncer.metadataOf(capture().stats()))
        .build();
  }

  /** Every stored record, in index order. */
  public List<StoredRecord> records() throws IOException {
    List<StoredRecord> out = new ArrayList<>();
    store().forEachRecord(out::add);
    return out;
  }

  /** The root of the local log, lowercase hex. */
  public String rootHex() throws IOException {
    var state = store().logState();
    CompactRange r =
        state.size() == 0 ? CompactRange.empty() : CompactRange.fromBytes(state.compactRange());
    return HexFormat.of().formatHex(r.root());
  }

  @Override
  public void close() throws IOException {
    agent.close();
  }
}
