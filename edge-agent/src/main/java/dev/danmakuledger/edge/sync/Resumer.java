package dev.danmakuledger.edge.sync;

import dev.danmakuledger.edge.keys.DeviceIdentity;
import dev.danmakuledger.edge.store.EdgeStore;
import dev.danmakuledger.edge.store.StoredRecord;
import dev.danmakuledger.merkle.compact.CompactRange;
import dev.danmakuledger.protocol.wire.LogState;
import java.io.IOException;
import java.util.HexFormat;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a sync run starts (docs/sync.md, "One run", step 1): the server's verified size V, checked
 * against the local log. The device must hold V records whose root at V is the server's; if the
 * server verified more (a restored backup, or a clone that synced first) or the roots differ (a
 * fork), the device shows the server its own signed checkpoint so the server, as witness of the
 * log, can record a fork and quarantine the device, and the run stops. Nothing local changes.
 */
final class Resumer {
  private static final Logger LOG = LoggerFactory.getLogger(Resumer.class);
  private static final HexFormat HEX = HexFormat.of();

  /** Records read per store query while computing a prefix. */
  static final int PAGE = 1000;

  /**
   * Where to resume: the verified prefix and the server's latest receipt for it.
   *
   * @param receipt the server's receipt for {@code verified}, or null
   */
  record Point(LogPrefix verified, String receipt) {}

  private final EdgeStore store;
  private final DeviceIdentity identity;
  private final Uplink uplink;

  Resumer(EdgeStore store, DeviceIdentity identity, Uplink uplink) {
    this.store = store;
    this.identity = identity;
    this.uplink = uplink;
  }

  /**
   * Reads the server's view of the log and checks the local log against it.
   *
   * @param known a prefix computed before (the last one verified), whose leaves are not read again
   *     when it is no longer than the server's
   * @throws SyncStoppedException {@code QUARANTINED}, {@code SERVER_AHEAD} or {@code FORK}, or as
   *     the server's answers stop the run
   */
  Point resume(LogPrefix known) throws IOException, InterruptedException {
    LogState server = uplink.log();
    if (server.status() == LogState.Status.QUARANTINED) {
      throw new SyncStoppedException(
          SyncStoppedException.Reason.QUARANTINED,
          "the server has quarantined device "
              + identity.deviceId()
              + "; nothing was sent, all local data is kept; ask an operator");
    }
    long v = server.verifiedSize();
    long local = store.logState().size();
    if (v > local) {
      present(prefix(known, local));
      throw new SyncStoppedException(
          SyncStoppedException.Reason.SERVER_AHEAD,
          "the server verified "
              + v
              + " records of device "
              + identity.deviceId()
              + " but this device holds only "
              + local
              + ": the data directory was restored from an older backup or cloned; nothing"
              + " was sent, all local data is kept");
    }
    LogPrefix verified = prefix(known, v);
    String localRoot = HEX.formatHex(verified.root());
    if (v > 0 && !localRoot.equalsIgnoreCase(String.valueOf(server.rootHex()))) {
      present(verified);
      throw new SyncStoppedException(
          SyncStoppedException.Reason.FORK,
          "FORK: the server verified size "
              + v
              + " of device "
              + identity.deviceId()
              + " with root "
              + server.rootHex()
              + ", this device's log has root "
              + localRoot
              + " there; the device was cloned, rolled back or tampered with. Nothing was sent,"
              + " all local data is kept");
    }
    return new Point(verified, v > 0 ? server.receipt() : null);
  }

  /**
   * Shows the server, as the witness of this log, the device's signed checkpoint for {@code prefix}
   * (at most the verified size) in an empty batch. If the logs forked the server sees two roots for
   * one size and quarantines the device, so an operator learns of the clone or rollback; if the
   * local log is a consistent prefix (a restored backup) the server accepts it and stores nothing.
   */
  private void present(LogPrefix prefix) throws IOException, InterruptedException {
    try {
      uplink.post(Batch.of(prefix, List.of(), identity));
      LOG.warn(
          "the server accepted this device's checkpoint for size {} as consistent", prefix.size());
    } catch (ServerProblemException e) {
      throw uplink.stopped(e);
    }
  }

  /** The prefix of {@code size} records: {@code known} extended when it is no longer. */
  private LogPrefix prefix(LogPrefix known, long size) throws IOException {
    CompactRange range = known.size() <= size ? known.range() : CompactRange.empty();
    long at = range.end();
    while (at < size) {
      int page = (int) Math.min(PAGE, size - at);
      List<StoredRecord> rows = store.records(at, page);
      if (rows.isEmpty()) {
        throw new IOException("store: no record at index " + at + ", want records up to " + size);
      }
      for (StoredRecord r : rows) {
        if (r.index() != at) {
          throw new IOException("store: got record index " + r.index() + ", want " + at);
        }
        range.append(r.leafHash());
        at++;
      }
    }
    return new LogPrefix(range);
  }
}
