package dev.danmakuledger.edge;

import dev.danmakuledger.edge.capture.CaptureService;
import dev.danmakuledger.edge.config.AgentConfig;
import dev.danmakuledger.edge.keys.DeviceIdentity;
import dev.danmakuledger.edge.store.DataDirLock;
import dev.danmakuledger.edge.store.EdgeStore;
import dev.danmakuledger.edge.store.PrivateFiles;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;

/**
 * The object graph of an agent that owns its data directory, wired in order: lock, config, key,
 * store, capture service; closing reverses the order. The command line and programs that embed an
 * agent (the demo, the end-to-end tests) build it the same way through this class.
 */
public final class EdgeAgent implements AutoCloseable {
  private final Path dataDir;
  private final DataDirLock lock;
  private final AgentConfig config;
  private final DeviceIdentity identity;
  private final EdgeStore store;
  private final CaptureService capture;

  private EdgeAgent(
      Path dataDir,
      DataDirLock lock,
      AgentConfig config,
      DeviceIdentity identity,
      EdgeStore store,
      CaptureService capture) {
    this.dataDir = dataDir;
    this.lock = lock;
    this.config = config;
    this.identity = identity;
    this.store = store;
    this.capture = capture;
  }

  /**
   * Creates a new data directory (mode 0700): an Ed25519 device key, an empty store and the
   * settings file (each mode 0600), written last so a directory is initialised only once everything
   * else exists.
   *
   * @throws FileAlreadyExistsException if {@code dataDir} is already initialised
   */
  public static DeviceIdentity initialise(Path dataDir, AgentConfig config, Clock clock)
      throws IOException {
    PrivateFiles.createDirectory(dataDir);
    if (Files.exists(AgentConfig.fileIn(dataDir))) {
      throw new FileAlreadyExistsException(
          AgentConfig.fileIn(dataDir).toString(),
          null,
          "already initialised; use another data dir");
    }
    DataDirLock lock = DataDirLock.acquire(dataDir);
    try {
      DeviceIdentity identity =
          DeviceIdentity.generate(dataDir, config.deviceId(), new SecureRandom());
      try (EdgeStore store = EdgeStore.open(EdgeStore.fileIn(dataDir), config.durability())) {
        store.putMeta("device_id", config.deviceId());
        store.putMeta("created_at", Long.toString(clock.millis()));
      }
      config.createIn(dataDir);
      return identity;
    } finally {
      lock.close();
    }
  }

  /**
   * Opens an initialised data directory, taking its lock, and starts the capture service. The
   * settings are read before locking, so an uninitialised directory is reported as such; a
   * directory an older agent left group- or world-accessible is set to mode 0700.
   */
  public static EdgeAgent open(Path dataDir, Clock clock) throws IOException {
    AgentConfig config = AgentConfig.load(dataDir);
    DataDirLock lock = DataDirLock.acquire(dataDir);
    EdgeStore store = null;
    try {
      PrivateFiles.restrictDirectory(dataDir);
      DeviceIdentity identity = DeviceIdentity.load(dataDir, config.deviceId());
      store = EdgeStore.openExisting(EdgeStore.fileIn(dataDir), config.durability());
      CaptureService capture =
          CaptureService.start(store, identity, config.bloom(), config.maxStoreBytes(), clock);
      return new EdgeAgent(dataDir, lock, config, identity, store, capture);
    } catch (IOException | RuntimeException e) {
      if (store != null) {
        store.close();
      }
      lock.close();
      throw e;
    }
  }

  /** Tells other processes where this agent's local ingest API listens (see DataDirLock). */
  public void advertise(String apiAddress) throws IOException {
    lock.advertise(apiAddress);
  }

  public Path dataDir() {
    return dataDir;
  }

  public AgentConfig config() {
    return config;
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
