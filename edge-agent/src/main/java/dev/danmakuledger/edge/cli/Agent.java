package dev.danmakuledger.edge.cli;

import dev.danmakuledger.edge.capture.CaptureService;
import dev.danmakuledger.edge.config.AgentConfig;
import dev.danmakuledger.edge.keys.DeviceIdentity;
import dev.danmakuledger.edge.store.DataDirLock;
import dev.danmakuledger.edge.store.EdgeStore;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;

/**
 * The object graph of an agent that owns its data directory, wired in order: lock, config, key,
 * store, capture service. Closing reverses the order.
 */
final class Agent implements AutoCloseable {
  final Path dataDir;
  final DataDirLock lock;
  final AgentConfig config;
  final DeviceIdentity identity;
  final EdgeStore store;
  final CaptureService capture;

  private Agent(
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

  /** Loads the config (before locking, so an uninitialised directory is reported as such). */
  static Agent open(Path dataDir, Clock clock) throws IOException {
    AgentConfig config = AgentConfig.load(dataDir);
    DataDirLock lock = DataDirLock.acquire(dataDir);
    EdgeStore store = null;
    try {
      DeviceIdentity identity = DeviceIdentity.load(dataDir, config.deviceId());
      store = EdgeStore.openExisting(EdgeStore.fileIn(dataDir), config.durability());
      CaptureService capture =
          CaptureService.start(store, identity, config.bloom(), config.maxStoreBytes(), clock);
      return new Agent(dataDir, lock, config, identity, store, capture);
    } catch (IOException | RuntimeException e) {
      if (store != null) {
        store.close();
      }
      lock.close();
      throw e;
    }
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
