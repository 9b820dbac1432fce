package dev.danmakuledger.bench.demo;

import dev.danmakuledger.edge.capture.CaptureService;
import dev.danmakuledger.edge.config.AgentConfig;
import dev.danmakuledger.edge.keys.DeviceIdentity;
import dev.danmakuledger.edge.store.DataDirLock;
import dev.danmakuledger.edge.store.EdgeStore;
import dev.danmakuledger.edge.store.StoredRecord;
import dev.danmakuledger.edge.sync.Backoff;
import dev.danmakuledger.edge.sync.Enrollment;
import dev.danmakuledger.edge.sync.ServerLink;
import dev.danmakuledger.edge.sync.Sleeper;
import dev.danmakuledger.edge.sync.SyncClient;
import dev.danmakuledger.edge.sync.SyncSettings;
import dev.danmakuledger.edge.sync.Syncer;
import dev.danmakuledger.merkle.checkpoint.NoteVerifier;
import dev.danmakuledger.merkle.compact.CompactRange;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import okhttp3.OkHttpClient;

/**
 * An edge agent running in this JVM, wired the way {@code edge-agent run} wires it (lock, config,
 * key, store, capture service), plus the sync client. Used by the demo and the end-to-end tests.
 */
public final class EdgeNode implements AutoCloseable {
  private final Path dir;
  private final DataDirLock lock;
  private final AgentConfig config;
  private final DeviceIdentity identity;
  private final EdgeStore store;
  private final CaptureService capture;

  private EdgeNode(
      Path dir,
      DataDirLock lock,
      AgentConfig config,
      DeviceIdentity identity,
      EdgeStore store,
      CaptureService capture) {
    this.dir = dir;
    this.lock = lock;
    this.config = config;
    this.identity = identity;
    this.store = store;
    this.capture = capture;
  }

  /** Initialises a new data directory for {@code deviceId} (like {@code edge-agent init}). */
  public static EdgeNode init(Path dir, String deviceId, Clock clock) throws IOException {
    Files.createDirectories(dir);
    AgentConfig config = AgentConfig.defaults(deviceId);
    DataDirLock lock = DataDirLock.acquire(dir);
    try {
      DeviceIdentity.generate(dir, deviceId, new SecureRandom());
      try (EdgeStore store = EdgeStore.open(EdgeStore.fileIn(dir), config.durability())) {
        store.putMeta("device_id", deviceId);
        store.putMeta("created_at", Long.toString(clock.millis()));
      }
      config.createIn(dir);
    } finally {
      lock.close();
    }
    return open(dir, clock);
  }

  /** Opens an initialised data directory and starts its capture service. */
  public static EdgeNode open(Path dir, Clock clock) throws IOException {
    AgentConfig config = AgentConfig.load(dir);
    DataDirLock lock = DataDirLock.acquire(dir);
    EdgeStore store = null;
    try {
      DeviceIdentity identity = DeviceIdentity.load(dir, config.deviceId());
      store = EdgeStore.open(EdgeStore.fileIn(dir), config.durability());
      CaptureService capture =
          CaptureService.start(store, identity, config.bloom(), config.maxStoreBytes(), clock);
      return new EdgeNode(dir, lock, config, identity, store, capture);
    } catch (IOException | RuntimeException e) {
      if (store != null) {
        store.close();
      }
      lock.close();
      throw e;
    }
  }

  public String deviceId() {
    return identity.deviceId();
  }

  public Path dir() {
    return dir;
  }

  public DeviceIdentity identity() {
    return identity;
  }

  public EdgeStore store() {
    return store;
  }

  public CaptureService capture() {
    return capture;
  }

  public AgentConfig config() {
    return config;
  }

  /** Enrols with the server (real HTTP) and records the link in the data directory. */
  public ServerLink enroll(OkHttpClient http, String serverUrl, String token, Clock clock)
      throws IOException {
    return Enrollment.enroll(new SyncClient(http, serverUrl, clock), identity, token, dir);
  }

  /**
   * A syncer talking to {@code serverUrl} (which may be a proxy in front of the enrolled server),
   * with real sleeps between retries and a seeded jitter.
   */
  public Syncer syncer(
      OkHttpClient http, String serverUrl, NoteVerifier serverKey, SyncSettings s, Clock clock) {
    Random random = new Random(deviceId().hashCode());
    return new Syncer(
        store,
        identity,
        new SyncClient(http, serverUrl, clock),
        serverKey,
        s,
        new Backoff(s.backoffBase(), s.backoffCap(), random::nextDouble),
        Sleeper.real(),
        clock,
        () -> Syncer.metadataOf(capture.stats()));
  }

  /** Every stored record, in index order. */
  public List<StoredRecord> records() throws IOException {
    List<StoredRecord> out = new ArrayList<>();
    store.forEachRecord(out::add);
    return out;
  }

  /** The root of the local log, lowercase hex. */
  public String rootHex() throws IOException {
    var state = store.logState();
    CompactRange r =
        state.size() == 0 ? CompactRange.empty() : CompactRange.fromBytes(state.compactRange());
    return HexFormat.of().formatHex(r.root());
  }

  @Override
  public void close() throws IOException {
    try {
      capture.close();
    } finally {
      try {
        store.close();
      } finally {
        lock.close();
      }
    }
  }
}
