package dev.danmakuledger.server.storage;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * The upload queue state devices report (docs/sync-server.md, "Stuck devices"), and the STUCK rule
 * over it. A device is stuck when it keeps contacting the server while its queue does not move: a
 * report whose oldest unsynced capture is at least {@code stuckAfter} old and the same as in the
 * device's previous report. One alert per episode: the episode stays open, raising nothing more,
 * until a report shows the queue younger than {@code stuckAfter} (or empty). Callers pass only
 * reports from batches whose device checkpoint verified.
 */
public final class DeviceSyncStates {
  private static final String COLUMNS =
      "device_id, oldest_unsynced_at, queue_age_ms, last_attempt_age_ms, last_outcome, reported_at,"
          + " stuck_since, reported_at_size";

  private final DataSource ds;

  public DeviceSyncStates(Database db) {
    this.ds = db.dataSource();
  }

  /** What a report did: the stored state, and the STUCK alert if this report opened an episode. */
  public record Recorded(DeviceSyncState state, Optional<AlertRow> newAlert) {}

  /**
   * A report to store, with the rule it is judged by.
   *
   * @param state what the device reported (its {@code stuckSince} is ignored)
   * @param stuckAfter how old an unmoved queue may get before the device is STUCK
   * @param alertFor the alert (not yet stored) of an episode this report opens
   */
  public record Report(
      DeviceSyncState state, Duration stuckAfter, Function<DeviceSyncState, AlertRow> alertFor) {
    public Report {
      Objects.requireNonNull(state, "state");
      Objects.requireNonNull(alertFor, "alertFor");
      if (stuckAfter.isNegative() || stuckAfter.isZero()) {
        throw new IllegalArgumentException("stuckAfter: got " + stuckAfter + ", want > 0");
      }
    }
  }

  /** {@link #record(DeviceSyncState, Duration, Function)} of {@code report}. */
  public Recorded record(Report report) {
    return record(report.state(), report.stuckAfter(), report.alertFor());
  }

  /**
   * Stores {@code report} and applies the STUCK rule in the caller's transaction (the batch that
   * carried it, docs/sync-server.md "Stuck devices"), after the device row is locked.
   */
  static Recorded recordIn(Connection c, Report report) throws SQLException {
    try {
      return recordIn(c, report.state(), report.stuckAfter(), report.alertFor());
    } catch (SQLException e) {
      if (!Jdbc.isUniqueViolation(e)) {
        throw e;
      }
      // A first report of the device inserted its row meanwhile (it raised nothing: a first report
      // opens no episode); only the failed insert was undone, so read that row and update it.
      return recordIn(c, report.state(), report.stuckAfter(), report.alertFor());
    }
  }

  /**
   * Stores {@code report} (its {@code stuckSince} is ignored) and applies the STUCK rule, with the
   * alert and the episode counter, in one transaction.
   *
   * @param alertFor the alert (not yet stored) of an episode this report opens
   * @throws StorageUnavailableException when the database cannot be reached
   */
  public Recorded record(
      DeviceSyncState report, Duration stuckAfter, Function<DeviceSyncState, AlertRow> alertFor) {
    Objects.requireNonNull(report, "report");
    if (stuckAfter.isNegative() || stuckAfter.isZero()) {
      throw new IllegalArgumentException("stuckAfter: got " + stuckAfter + ", want > 0");
    }
    for (int attempt = 1; ; attempt++) {
      try {
        return Jdbc.inTransaction(
            ds,
            "sync state of " + report.deviceId(),
            c -> recordIn(c, report, stuckAfter, alertFor));
      } catch (IllegalStateException e) {
        // Two first reports of one device raced to insert its row: the loser reads it and retries.
        if (attempt >= 3
            || !(e.getCause() instanceof SQLException s && Jdbc.isUniqueViolation(s))) {
          throw e;
        }
      }
    }
  }

  private static Recorded recordIn(
      Connection c,
      DeviceSyncState report,
      Duration stuckAfter,
      Function<DeviceSyncState, AlertRow> alertFor)
      throws SQLException {
    Optional<DeviceSyncState> previous = select(c, report.deviceId(), true);
    boolean old = report.queueAgeMs() != null && report.queueAgeMs() >= stuckAfter.toMillis();
    boolean unmoved =
        previous.isPresent()
            && report.oldestUnsyncedAt() != null
            && report.oldestUnsyncedAt().equals(previous.get().oldestUnsyncedAt());
    Long since = previous.map(DeviceSyncState::stuckSince).orElse(null);
    Optional<AlertRow> raised = Optional.empty();
    if (!old) {
      since = null;
    } else if (unmoved && since == null) {
      since = report.reportedAt();
      raised = Optional.of(AlertStore.insert(c, alertFor.apply(report.withStuckSince(since))));
      Jdbc.addCounters(c, Map.of(Counter.STUCK_EPISODES.key(), 1L));
    }
    DeviceSyncState stored = report.withStuckSince(since);
    write(c, stored, previous.isPresent());
    return new Recorded(stored, raised);
  }

  private static void write(Connection c, DeviceSyncState s, boolean exists) throws SQLException {
    String sql =
        exists
            ? "UPDATE device_sync_state SET oldest_unsynced_at = ?, queue_age_ms = ?,"
                + " last_attempt_age_ms = ?, last_outcome = ?, reported_at = ?, stuck_since = ?,"
                + " reported_at_size = ? WHERE device_id = ?"
            : "INSERT INTO device_sync_state (oldest_unsynced_at, queue_age_ms, last_attempt_age_ms,"
                + " last_outcome, reported_at, stuck_since, reported_at_size, device_id)"
                + " VALUES (?,?,?,?,?,?,?,?)";
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      setLong(ps, 1, s.oldestUnsyncedAt());
      setLong(ps, 2, s.queueAgeMs());
      setLong(ps, 3, s.lastAttemptAgeMs());
      ps.setString(4, s.lastOutcome());
      ps.setLong(5, s.reportedAt());
      setLong(ps, 6, s.stuckSince());
      setLong(ps, 7, s.reportedAtSize());
      ps.setString(8, s.deviceId());
      ps.executeUpdate();
    }
  }

  private static void setLong(PreparedStatement ps, int i, Long v) throws SQLException {
    if (v == null) {
      ps.setNull(i, Types.BIGINT);
    } else {
      ps.setLong(i, v);
    }
  }

  private static Optional<DeviceSyncState> select(Connection c, String deviceId, boolean lock)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT "
                + COLUMNS
                + " FROM device_sync_state WHERE device_id = ?"
                + (lock ? " FOR UPDATE" : ""))) {
      ps.setString(1, deviceId);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(row(rs)) : Optional.empty();
      }
    }
  }

  private static DeviceSyncState row(ResultSet rs) throws SQLException {
    return new DeviceSyncState(
        rs.getString(1),
        Jdbc.getLong(rs, 2),
        Jdbc.getLong(rs, 3),
        Jdbc.getLong(rs, 4),
        rs.getString(5),
        rs.getLong(6),
        Jdbc.getLong(rs, 7),
        Jdbc.getLong(rs, 8));
  }

  /** The state a device last reported, if it ever did. */
  public Optional<DeviceSyncState> get(String deviceId) {
    return Jdbc.read(ds, "sync state of " + deviceId, c -> select(c, deviceId, false));
  }

  /** The last report of every device that sent one. */
  public Map<String, DeviceSyncState> all() {
    return Jdbc.read(
        ds,
        "sync states",
        c -> {
          Map<String, DeviceSyncState> out = new HashMap<>();
          try (PreparedStatement ps =
                  c.prepareStatement("SELECT " + COLUMNS + " FROM device_sync_state");
              ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              DeviceSyncState s = row(rs);
              out.put(s.deviceId(), s);
            }
          }
          return out;
        });
  }
}
