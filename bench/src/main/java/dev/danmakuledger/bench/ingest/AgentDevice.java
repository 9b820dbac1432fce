package dev.danmakuledger.bench.ingest;

import dev.danmakuledger.edge.capture.CaptureAck;
import dev.danmakuledger.edge.capture.CaptureRequest;
import dev.danmakuledger.edge.capture.CaptureService;
import dev.danmakuledger.edge.capture.DedupeStats;
import dev.danmakuledger.edge.capture.IdempotencyConflictException;
import dev.danmakuledger.edge.config.AgentConfig;
import dev.danmakuledger.edge.keys.DeviceIdentity;
import dev.danmakuledger.edge.store.Durability;
import dev.danmakuledger.edge.store.EdgeStore;
import dev.danmakuledger.edge.store.StoreException;
import dev.danmakuledger.edge.verify.LogVerifier;
import dev.danmakuledger.edge.verify.VerifyReport;
import dev.danmakuledger.merkle.checkpoint.NoteVerifier;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A real edge agent (capture service, Bloom filter, SQLite store, signed Merkle log) opened on a
 * data directory laid out as {@code edge-agent init} lays it out, for the harnesses that drive,
 * copy and tamper with devices.
 */
public final class AgentDevice implements AutoCloseable {
  private final Path dataDir;
  private final DeviceIdentity identity;
  private final EdgeStore store;
  private final CaptureService capture;

  private AgentDevice(
      Path dataDir, DeviceIdentity identity, EdgeStore store, CaptureService capture) {
    this.dataDir = dataDir;
    this.identity = identity;
    this.store = store;
    this.capture = capture;
  }

  /**
   * Initialises {@code dataDir} (key, settings) unless it already holds a device, then opens it.
   */
  public static AgentDevice openOrInit(Path dataDir, String deviceId, Clock clock)
      throws IOException {
    Files.createDirectories(dataDir);
    if (!Files.exists(AgentConfig.fileIn(dataDir))) {
      DeviceIdentity.generate(dataDir, deviceId, new SecureRandom());
      AgentConfig.defaults(deviceId).createIn(dataDir);
    }
    return open(dataDir, clock);
  }

  /** Opens an initialised data directory. */
  public static AgentDevice open(Path dataDir, Clock clock) throws IOException {
    AgentConfig config = AgentConfig.load(dataDir);
    DeviceIdentity identity = DeviceIdentity.load(dataDir, config.deviceId());
    EdgeStore store = EdgeStore.open(EdgeStore.fileIn(dataDir), Durability.FULL);
    try {
      CaptureService capture =
          CaptureService.start(store, identity, config.bloom(), config.maxStoreBytes(), clock);
      return new AgentDevice(dataDir, identity, store, capture);
    } catch (IOException | RuntimeException e) {
      store.close();
      throw e;
    }
  }

  /**
   * Audits the store in {@code dataDir} as {@code edge-agent verify} does, without opening it for
   * writing.
   */
  public static VerifyReport verify(Path dataDir) throws IOException {
    AgentConfig config = AgentConfig.load(dataDir);
    DeviceIdentity identity = DeviceIdentity.load(dataDir, config.deviceId());
    try (EdgeStore store = EdgeStore.openReadOnly(EdgeStore.fileIn(dataDir))) {
      return new LogVerifier(config.deviceId(), NoteVerifier.parse(identity.signer().verifierKey()))
          .verify(store);
    }
  }

  /** The device identity stored in {@code dataDir}. */
  public static DeviceIdentity identityOf(Path dataDir) throws IOException {
    return DeviceIdentity.load(dataDir, AgentConfig.load(dataDir).deviceId());
  }

  public String deviceId() {
    return identity.deviceId();
  }

  public DeviceIdentity identity() {
    return identity;
  }

  public Path dataDir() {
    return dataDir;
  }

  public EdgeStore store() {
    return store;
  }

  /** The committed log size, as the capture service last published it. */
  public long logSize() {
    return capture.logStatus().size();
  }

  /** The edge duplicate counters. */
  public DedupeStats stats() {
    return capture.stats();
  }

  /** The enrolment form of the public key. */
  public String publicKeyBase64() {
    return Base64.getEncoder().encodeToString(identity.signer().publicKey());
  }

  /** Captures one message and returns its durable ack. */
  public CaptureAck capture(CaptureRequest request)
      throws IdempotencyConflictException, StoreException, InterruptedException {
    return capture.capture(request);
  }

  /** Queues messages for capture in one group; each future completes with its durable ack. */
  public List<CompletableFuture<CaptureAck>> submitAll(List<CaptureRequest> requests) {
    return capture.submitAll(requests);
  }

  @Override
  public void close() throws StoreException {
    try {
      capture.close();
    } finally {
      store.close();
    }
  }
}
