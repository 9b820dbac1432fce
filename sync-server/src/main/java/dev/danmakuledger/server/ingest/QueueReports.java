package dev.danmakuledger.server.ingest;

import dev.danmakuledger.protocol.wire.BatchMetadata;
import dev.danmakuledger.protocol.wire.SyncAttempt;
import dev.danmakuledger.protocol.wire.admin.AdminEvent.Severity;
import dev.danmakuledger.server.events.AdminHub;
import dev.danmakuledger.server.events.AlertKind;
import dev.danmakuledger.server.events.Events;
import dev.danmakuledger.server.storage.AlertRow;
import dev.danmakuledger.server.storage.DeviceSyncState;
import dev.danmakuledger.server.storage.DeviceSyncStates;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Stores the upload queue state an agent reports with a batch and raises the STUCK alert
 * (docs/sync-server.md, "Stuck devices"). The batch pipeline takes the report once per request,
 * right after the device's checkpoint signature verified, and stores it in the batch's transaction
 * when the batch extends the device's log; a report the device signed is also stored on its own
 * when the batch is refused or writes nothing, so a device that keeps failing the same way is seen
 * (docs/sync.md, "Signed reports"). Input that did not authenticate never reaches it. Batches of
 * agents that report no queue state leave the stored state as it was.
 */
public final class QueueReports {
  private final DeviceSyncStates states;
  private final Duration stuckAfter;
  private final Duration alertWindow;
  private final AdminHub admin;

  /**
   * @param stuckAfter how old a device's oldest unsynced capture may get while its queue does not
   *     move before it is STUCK
   * @param alertWindow the shortest time between two STUCK alerts of one device
   */
  public QueueReports(
      DeviceSyncStates states, Duration stuckAfter, Duration alertWindow, AdminHub admin) {
    if (stuckAfter.isNegative() || stuckAfter.isZero()) {
      throw new IllegalArgumentException("stuckAfter: got " + stuckAfter + ", want > 0");
    }
    if (alertWindow.isNegative()) {
      throw new IllegalArgumentException("alertWindow: got " + alertWindow + ", want >= 0");
    }
    this.states = Objects.requireNonNull(states, "states");
    this.stuckAfter = stuckAfter;
    this.alertWindow = alertWindow;
    this.admin = Objects.requireNonNull(admin, "admin");
  }

  /**
   * What an authenticated batch of {@code deviceId} reported, received at {@code now}, to be stored
   * with the batch or, when the batch is refused, by {@link #store}; null when it reported no queue
   * state or its signature did not verify. {@code oldSize} is the device log size the batch starts
   * at (its first record was the oldest the device had not synced).
   */
  DeviceSyncStates.Report of(
      String deviceId, BatchMetadata m, ReportProvenance provenance, long oldSize, long now) {
    if (m == null || !m.reportsQueue() || provenance == ReportProvenance.UNVERIFIED) {
      return null;
    }
    SyncAttempt last = m.lastAttempt();
    DeviceSyncState report =
        new DeviceSyncState(
            deviceId,
            m.oldestUnsyncedMillis(),
            age(m, now),
            last == null ? null : bounded(sentAt(m, now) - last.atMillis(), now),
            last == null ? null : last.outcome(),
            now,
            null,
            oldSize);
    if (provenance == ReportProvenance.SIGNED) {
      report = report.signedAs(m.reportSeq());
    }
    return new DeviceSyncStates.Report(report, stuckAfter, alertWindow, this::alert);
  }

  /**
   * Stores a signed report on its own (its batch was refused or wrote nothing) and publishes its
   * alert; an unsigned one is dropped (beside a replayed checkpoint it could be anyone's).
   */
  void storeAlone(DeviceSyncStates.Report report) {
    if (report != null && report.state().signed()) {
      published(states.record(report).newAlert());
    }
  }

  /** Publishes the STUCK alert a stored report raised, if any. */
  void published(Optional<AlertRow> alert) {
    alert.ifPresent(a -> admin.publish(Events.of(a)));
  }

  /**
   * How old the oldest unsynced capture was at sending, on the device's own clock when it sent one
   * (skew then cancels out), else on the server's; never negative, and never older than the
   * server's own clock reading (no capture predates the epoch), whatever clock readings a device
   * sends. The last attempt's age likewise.
   */
  static Long age(BatchMetadata m, long now) {
    if (m.oldestUnsyncedMillis() == null) {
      return null;
    }
    return bounded(sentAt(m, now) - m.oldestUnsyncedMillis(), now);
  }

  /**
   * {@code age} within {@code [0, now]}. Both readings it is the difference of are non-negative, so
   * the subtraction cannot overflow; a device clock far ahead of the server's can still make it
   * absurd, and an age beyond the server's own clock reading is one.
   */
  static long bounded(long age, long now) {
    return Math.min(Math.max(0, age), Math.max(0, now));
  }

  private static long sentAt(BatchMetadata m, long now) {
    return m.deviceClockMillis() != null ? m.deviceClockMillis() : now;
  }

  private AlertRow alert(DeviceSyncState s) {
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("queueAgeMs", s.queueAgeMs());
    data.put("oldestUnsyncedAt", Instant.ofEpochMilli(s.oldestUnsyncedAt()).toString());
    data.put("lastOutcome", s.lastOutcome());
    data.put("stuckAfterMs", stuckAfter.toMillis());
    return Events.alert(
        AlertKind.STUCK,
        Severity.WARN,
        s.deviceId(),
        "device "
            + s.deviceId()
            + " keeps syncing but its upload queue does not drain: its oldest unsynced capture is "
            + Duration.ofMillis(s.queueAgeMs()).toSeconds()
            + " s old (threshold "
            + stuckAfter.toSeconds()
            + " s), last attempt "
            + (s.lastOutcome() == null ? "unknown" : s.lastOutcome())
            + "; check what the server answers this device (alerts, logs, edge-agent status)",
        data,
        s.reportedAt());
  }
}
