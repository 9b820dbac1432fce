package dev.danmakuledger.edge.capture;

import dev.danmakuledger.edge.config.AgentConfig;
import dev.danmakuledger.edge.store.EdgeStore;
import dev.danmakuledger.edge.store.QueueState;
import dev.danmakuledger.edge.store.StoreException;
import dev.danmakuledger.edge.store.StoredCheckpoint;
import dev.danmakuledger.merkle.compact.CompactRange;
import dev.danmakuledger.protocol.DeviceLog;
import java.util.HexFormat;
import java.util.Map;

/**
 * What {@code edge-agent status} and {@code GET /v1/status} report: the log (size, root, latest
 * signed checkpoint), server outcomes per record, the latest receipt, store size and bound, the
 * dedupe counters and the upload queue's state (docs/edge-agent.md, "Sync state").
 */
public record AgentStatus(
    String deviceId,
    String origin,
    long logSize,
    String rootHex,
    String checkpoint,
    Long checkpointAt,
    Long receiptSize,
    Map<String, Long> outcomes,
    long storeBytes,
    long maxStoreBytes,
    DedupeStats dedupe,
    QueueState sync) {
  public AgentStatus {
    outcomes = Map.copyOf(outcomes);
  }

  /** The status of a running agent. */
  public static AgentStatus live(CaptureService capture, EdgeStore store, long maxStoreBytes)
      throws StoreException {
    LogStatus log = capture.logStatus();
    return new AgentStatus(
        capture.deviceId(),
        DeviceLog.origin(capture.deviceId()),
        log.size(),
        log.rootHex(),
        log.checkpoint(),
        store.latestCheckpoint().map(StoredCheckpoint::createdAt).orElse(null),
        store.latestReceipt().map(StoredCheckpoint::size).orElse(null),
        store.outcomeCounts(),
        store.sizeOnDiskBytes(),
        maxStoreBytes,
        capture.stats(),
        QueueState.read(store));
  }

  /** The status read from a store no agent in this process runs (it may be read-only). */
  public static AgentStatus fromStore(EdgeStore store, AgentConfig config) throws StoreException {
    var state = store.logState();
    byte[] root =
        state.size() == 0
            ? CompactRange.empty().root()
            : CompactRange.fromBytes(state.compactRange()).root();
    var cp = store.latestCheckpoint();
    long rotations = store.loadBloom().map(s -> s.rotations()).orElse(0L);
    return new AgentStatus(
        config.deviceId(),
        DeviceLog.origin(config.deviceId()),
        state.size(),
        HexFormat.of().formatHex(root),
        cp.map(StoredCheckpoint::note).orElse(null),
        cp.map(StoredCheckpoint::createdAt).orElse(null),
        store.latestReceipt().map(StoredCheckpoint::size).orElse(null),
        store.outcomeCounts(),
        store.sizeOnDiskBytes(),
        config.maxStoreBytes(),
        DedupeStats.fromCounters(store.counters(), config.bloom(), rotations),
        QueueState.read(store));
  }
}
