package dev.danmakuledger.server.ingest;

import dev.danmakuledger.server.storage.DeviceRow;
import dev.danmakuledger.server.storage.DeviceStatus;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The device row the last batch of each device committed on this instance left, so that the
 * device's next batch starts from it instead of reading the row from SQL (docs/architecture.md §5,
 * "Batches in flight"). The row's optimistic lock stays the authority: a batch started from a row
 * that another instance has moved on fails its tick as stale and is tried again from SQL, and the
 * device's batches then start from SQL for {@link #AFTER_STALE} (its batches reach other instances
 * too, as behind a load balancer without affinity). Only a batch that starts right at the
 * remembered verified size and appends records starts from memory; a resend, an empty batch and one
 * starting elsewhere read SQL, so no refusal is ever decided from a remembered row.
 *
 * <p>At most {@link #MAX_DEVICES} devices are remembered, the least recently used dropped first.
 * Thread-safe.
 */
final class RecentDevices {
  /** Devices remembered at most: a row is a few kilobytes, so a few megabytes in all. */
  static final int MAX_DEVICES = 4_096;

  /** How long a device whose remembered row turned out stale starts its batches from SQL. */
  static final Duration AFTER_STALE = Duration.ofMinutes(1);

  /** A device's remembered row (null while it reads SQL) and until when it reads SQL. */
  private record Entry(DeviceRow row, long fromSqlUntilNanos) {}

  private final LongSupplier nanoTime;
  private final Map<String, Entry> devices;

  RecentDevices() {
    this(MAX_DEVICES, System::nanoTime);
  }

  RecentDevices(int maxDevices, LongSupplier nanoTime) {
    this.nanoTime = nanoTime;
    this.devices = new RecentlyUsed<>(maxDevices);
  }

  /**
   * The remembered row of {@code deviceId} for a batch of {@code records} from {@code oldSize}, or
   * null when the batch must read SQL: no records, none remembered, the device recently found stale
   * here, not active, or {@code oldSize} not its remembered verified size.
   */
  synchronized DeviceRow startingAt(String deviceId, long oldSize, List<?> records) {
    if (records.isEmpty()) {
      return null;
    }
    Entry e = devices.get(deviceId);
    if (e == null || e.row() == null || nanoTime.getAsLong() - e.fromSqlUntilNanos() < 0) {
      return null;
    }
    DeviceRow row = e.row();
    return row.status() == DeviceStatus.ACTIVE && row.verifiedSize() == oldSize ? row : null;
  }

  /** The row a batch of the device committed here left. */
  synchronized void committed(DeviceRow row) {
    Entry e = devices.get(row.id());
    long until = e == null ? nanoTime.getAsLong() : e.fromSqlUntilNanos();
    DeviceRow kept =
        e != null && e.row() != null && e.row().version() > row.version() ? e.row() : row;
    devices.put(row.id(), new Entry(kept, until));
  }

  /** A batch of {@code deviceId} found its row moved on by someone else: read SQL for a while. */
  synchronized void stale(String deviceId) {
    devices.put(deviceId, new Entry(null, nanoTime.getAsLong() + AFTER_STALE.toNanos()));
  }

  /** Devices remembered now. */
  synchronized int size() {
    return devices.size();
  }
}
