package dev.danmakuledger.server.query;

import dev.danmakuledger.protocol.wire.Outcome;
import dev.danmakuledger.protocol.wire.admin.AdminEvent;
import dev.danmakuledger.protocol.wire.admin.AlertList;
import dev.danmakuledger.protocol.wire.admin.DeviceList;
import dev.danmakuledger.protocol.wire.admin.DeviceQueue;
import dev.danmakuledger.protocol.wire.admin.DeviceSummary;
import dev.danmakuledger.protocol.wire.admin.DuplicateLayers;
import dev.danmakuledger.protocol.wire.admin.Overview;
import dev.danmakuledger.protocol.wire.admin.ReviewItem;
import dev.danmakuledger.protocol.wire.admin.ReviewQueue;
import dev.danmakuledger.protocol.wire.admin.RoomList;
import dev.danmakuledger.protocol.wire.admin.RoomSummary;
import dev.danmakuledger.server.events.Events;
import dev.danmakuledger.server.kafka.RelayReports;
import dev.danmakuledger.server.storage.AlertRow;
import dev.danmakuledger.server.storage.Counter;
import dev.danmakuledger.server.storage.DeviceRow;
import dev.danmakuledger.server.storage.DeviceStatus;
import dev.danmakuledger.server.storage.DeviceSyncState;
import dev.danmakuledger.server.storage.DeviceSyncStates;
import dev.danmakuledger.server.storage.LedgerStore;
import dev.danmakuledger.server.storage.MessageRow;
import dev.danmakuledger.server.storage.RoomStats;
import dev.danmakuledger.server.storage.SignatureAttempts;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator console's view (docs/console.md): counters, device verification states, rooms, the
 * review queue and alerts, as the {@code protocol.wire.admin} DTOs. A device's status is derived
 * only from what the device proved; checkpoints that failed verification are unauthenticated and
 * shown as a separate attempt count (docs/security.md).
 */
public final class AdminView {
  private static final HexFormat HEX = HexFormat.of();
  private static final Logger LOG = LoggerFactory.getLogger(AdminView.class);

  private final LedgerStore store;
  private final SignatureAttempts attempts;
  private final DeviceSyncStates queues;
  private final Clock clock;
  private final Duration offlineAfter;
  private final Supplier<RelayReports.View> relay;
  private final Object rateLock = new Object();
  private long rateAt = -1;
  private long rateRecords;
  private double rate;

  /**
   * A view of {@code store} at the time of {@code clock}; a device not heard from for longer than
   * {@code offlineAfter} is OFFLINE when nothing else is wrong with it.
   */
  public AdminView(
      LedgerStore store,
      SignatureAttempts attempts,
      DeviceSyncStates queues,
      Clock clock,
      Duration offlineAfter) {
    this(store, attempts, queues, clock, offlineAfter, null);
  }

  /**
   * As {@link #AdminView(LedgerStore, SignatureAttempts, DeviceSyncStates, Clock, Duration)}, with
   * the rooms' Kafka relay lag read from {@code relay} (docs/kafka.md, "Lag"), or none when null.
   */
  public AdminView(
      LedgerStore store,
      SignatureAttempts attempts,
      DeviceSyncStates queues,
      Clock clock,
      Duration offlineAfter,
      Supplier<RelayReports.View> relay) {
    if (offlineAfter.isNegative() || offlineAfter.isZero()) {
      throw new IllegalArgumentException("offlineAfter: got " + offlineAfter + ", want > 0");
    }
    this.store = store;
    this.attempts = attempts;
    this.queues = queues;
    this.clock = clock;
    this.offlineAfter = offlineAfter;
    this.relay = relay;
  }

  public Overview overview() {
    Map<String, Long> c = store.counters();
    Map<String, Long> outcomes = new TreeMap<>();
    for (Outcome o : Outcome.values()) {
      outcomes.put(o.name(), c.getOrDefault(Counter.outcomeKey(o), 0L));
    }
    Map<String, Long> rejects = new TreeMap<>();
    for (Map.Entry<String, Long> e : c.entrySet()) {
      if (e.getKey().startsWith(Counter.REJECT_PREFIX)) {
        rejects.put(e.getKey().substring(Counter.REJECT_PREFIX.length()), e.getValue());
      }
    }
    List<DeviceRow> devices = store.devices();
    long edge = devices.stream().mapToLong(d -> d.edge().duplicates()).sum();
    long now = clock.millis();
    return new Overview(
        c.getOrDefault(Counter.BATCHES.key(), 0L),
        outcomes,
        new DuplicateLayers(
            edge,
            c.getOrDefault(Counter.DUPLICATES_REDIS.key(), 0L),
            c.getOrDefault(Counter.DUPLICATES_SQL.key(), 0L)),
        c.getOrDefault(Counter.CONFLICTS.key(), 0L),
        c.getOrDefault(Counter.FORKS.key(), 0L),
        c.getOrDefault(Counter.SIGNATURE_FAILURES.key(), 0L),
        rejects,
        store.alertCount(),
        devices.size(),
        store.rooms().size(),
        rate(now, c.getOrDefault(Counter.RECORDS.key(), 0L)),
        Instant.ofEpochMilli(now).toString());
  }

  /** Records per second since the previous overview at least a second ago. */
  private double rate(long now, long records) {
    synchronized (rateLock) {
      if (rateAt < 0) {
        rateAt = now;
        rateRecords = records;
      } else if (now - rateAt >= 1000) {
        rate = (records - rateRecords) * 1000.0 / (now - rateAt);
        rateAt = now;
        rateRecords = records;
      }
      return rate;
    }
  }

  public DeviceList devices() {
    long now = clock.millis();
    List<DeviceSummary> out = new ArrayList<>();
    Map<String, Long> failed = attempts.counts();
    Map<String, DeviceSyncState> reported = queues.all();
    for (DeviceRow d : store.devices()) {
      out.add(
          new DeviceSummary(
              d.id(),
              status(d, now, offlineAfter),
              d.verifiedSize(),
              d.claimedSize(),
              d.verifiedSize() == 0 ? null : HEX.formatHex(d.rootHash()),
              iso(d.lastCheckpointAt()),
              iso(d.lastReceiptAt()),
              d.clockSkewMs(),
              Math.max(0, d.claimedSize() - d.verifiedSize()),
              iso(d.lastSeenAt()),
              failed.getOrDefault(d.id(), 0L),
              shownQueue(d, reported.get(d.id()), now)));
    }
    return new DeviceList(out);
  }

  /**
   * {@link #queue} of one device, or null when its stored report cannot be shown (a row written
   * outside the server's checks): the device's row is listed without it and the page still serves
   * every other device.
   */
  private static DeviceQueue shownQueue(DeviceRow d, DeviceSyncState s, long now) {
    try {
      return queue(s, d.verifiedSize(), now);
    } catch (IllegalArgumentException e) {
      LOG.warn("device {}: its stored queue report is not shown: {}", d.id(), e.getMessage());
      return null;
    }
  }

  /**
   * The queue a device reported, aged to {@code now}; null when it never reported one. Once the
   * device's verified size passed the size it reported at, the record that was oldest then has been
   * delivered: its age and a STUCK episode about it are no longer shown (the device sends no new
   * report while it has nothing to sync; pending records, if any, show in {@code pending}).
   */
  static DeviceQueue queue(DeviceSyncState s, long verifiedSize, long now) {
    if (s == null) {
      return null;
    }
    boolean delivered = s.deliveredBy(verifiedSize);
    return new DeviceQueue(
        delivered ? null : s.queueAgeAt(now),
        s.lastAttemptAgeAt(now),
        s.lastOutcome(),
        s.stuck() && !delivered,
        Instant.ofEpochMilli(s.reportedAt()).toString(),
        s.signed());
  }

  static DeviceSummary.Status status(DeviceRow d, long now, Duration offlineAfter) {
    if (d.status() == DeviceStatus.QUARANTINED) {
      String reason = d.statusReason();
      return reason != null && reason.startsWith("FORK")
          ? DeviceSummary.Status.FORKED
          : DeviceSummary.Status.QUARANTINED;
    }
    if (d.claimedSize() > d.verifiedSize()) {
      return DeviceSummary.Status.BEHIND;
    }
    if (d.lastSeenAt() == null || now - d.lastSeenAt() > offlineAfter.toMillis()) {
      return DeviceSummary.Status.OFFLINE;
    }
    return DeviceSummary.Status.VERIFIED;
  }

  public RoomList rooms() {
    RelayReports.View lag = relayLag();
    List<RoomSummary> out = new ArrayList<>();
    for (RoomStats r : store.rooms()) {
      out.add(
          new RoomSummary(
              r.room(),
              r.highSeq(),
              r.tombstones(),
              r.confirmed(),
              r.pending(),
              r.rejected(),
              r.lastMinute(),
              lag == null ? null : lag.room(r.room())));
    }
    return new RoomList(out, lag == null ? null : lag.summary());
  }

  /**
   * The relay's lag, or null without a relay or while Redis cannot be read (the rooms still are).
   */
  private RelayReports.View relayLag() {
    if (relay == null) {
      return null;
    }
    try {
      return relay.get();
    } catch (RuntimeException e) {
      LOG.warn("rooms: the Kafka relay's lag is not shown: {}", e.toString());
      return null;
    }
  }

  public ReviewQueue review(int limit) {
    List<ReviewItem> items = new ArrayList<>();
    for (MessageRow m : store.pending(limit)) {
      items.add(reviewItem(m));
    }
    return new ReviewQueue(items);
  }

  public static ReviewItem reviewItem(MessageRow m) {
    return new ReviewItem(
        Long.toString(m.messageId()),
        m.room(),
        m.seq(),
        m.idempotencyKey(),
        m.deviceId(),
        m.user(),
        m.text(),
        m.color(),
        m.version());
  }

  public AlertList alerts(int limit) {
    List<AdminEvent> out = new ArrayList<>();
    for (AlertRow a : store.alerts(limit)) {
      out.add(Events.of(a));
    }
    return new AlertList(out);
  }

  private static String iso(Long millis) {
    return millis == null ? null : Instant.ofEpochMilli(millis).toString();
  }
}
