package dev.danmakuledger.server.storage;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * The upload queue state devices report (docs/sync-server.md, "Stuck devices"), and the STUCK rule
 * over it. A device is stuck when it keeps contacting the server while its queue does not move: a
 * signed report whose oldest unsynced capture is at least {@code stuckAfter} old and the same as in
 * the device's previous report. One alert per episode, and at most one per device per {@code
 * alertWindow}: the episode stays open, raising nothing more, until a report shows the queue
 * younger than {@code stuckAfter} (or empty). A signed report numbered no higher than one stored
 * before is a replay and changes nothing; an unsigned one (an older agent) is stored, flagged, and
 * opens no episode. Callers pass only reports whose signature verified, or unsigned ones from
 * batches that extended the device's verified log (docs/sync.md, "Signed reports").
 */
public final class DeviceSyncStates {
  private static final String COLUMNS =
      "device_id, oldest_unsynced_at, queue_age_ms, last_attempt_age_ms, last_outcome, reported_at,"
          + " stuck_since, reported_at_size, report_signed, report_seq, alerted_at";

  private final DataSource ds;

  public DeviceSyncStates(Database db) {
    this.ds = db.dataSource();
  }

  /**
   * What a report did: the stored state (the previous one when the report was a replay), whether
   * the report was stored, and the STUCK alert if it opened an episode.
   */
  public record Recorded(DeviceSyncState state, boolean stored, Optional<AlertRow> newAlert) {}

  /**
   * A report to store, with the rule it is judged by.
   *
   * @param state what the device reported (its {@code stuckSince} is ignored)
   * @param stuckAfter how old an unmoved queue may get before the device is STUCK
   * @param alertWindow the shortest time between two STUCK alerts of one device
   * @param alertFor the alert (not yet stored) of an episode this report opens
   */
  public record Report(
      DeviceSyncState state,
      Duration stuckAfter,
      Duration alertWindow,
      Function<DeviceSyncState, AlertRow> alertFor) {
    public Report {
      Objects.requireNonNull(state, "state");
      Objects.requireNonNull(alertFor, "alertFor");
      if (stuckAfter.isNegative() || stuckAfter.isZero()) {
        throw new IllegalArgumentException("stuckAfter: got " + stuckAfter + ", want > 0");
      }
      if (alertWindow.isNegative()) {
        throw new IllegalArgumentException("alertWindow: got " + alertWindow + ", want >= 0");
      }
    }
  }

  /**
   * Stores {@code report} and applies the STUCK rule in the caller's transaction (the batch that
   * carried it, docs/sync-server.md "Stuck devices"), after the device row is locked.
   */
  static Recorded recordIn(Connection c, Report report) throws SQLException {
    try {
      return apply(c, report);
    } catch (SQLException e) {
      if (!Jdbc.isUniqueViolation(e)) {
        throw e;
      }
      // A first report of the device inserted its row meanwhile (it raised nothing: a first report
      // opens no episode); only the failed insert was undone, so read that row and update it.
      return apply(c, report);
    }
  }

  /**
   * Stores {@code report} (its {@code stuckSince} is ignored) and applies the STUCK rule, with the
   * alert and the episode counter, in one transaction.
   *
   * @throws StorageUnavailableException when the database cannot be reached
   */
  public Recorded record(Report report) {
    Objects.requireNonNull(report, "report");
    for (int attempt = 1; ; attempt++) {
      try {
        return Jdbc.inTransaction(
            ds, "sync state of " + report.state().deviceId(), c -> apply(c, report));
      } catch (IllegalStateException e) {
        // Two first reports of one device raced to insert its row: the loser reads it and retries.
        if (attempt >= 3
            || !(e.getCause() instanceof SQLException s && Jdbc.isUniqueViolation(s))) {
          throw e;
        }
      }
    }
  }

  /**
   * Stores the reports of one tick's batches (docs/architecture.md §5, "Ticks") in the tick's
   * transaction: the devices' stored states are read and locked in one statement, each report
   * judged as {@link #recordIn} judges one, against the state the device's report before it in the
   * tick left, and each device's last state written back, in one update and one insert.
   *
   * @param reports in the order their batches commit; a device's several reports in its log order
   * @return what each report did, in the order of {@code reports}
   */
  static List<Recorded> recordTickIn(Connection c, List<Report> reports) throws SQLException {
    List<Recorded> out = new ArrayList<>(reports.size());
    if (reports.isEmpty()) {
      return out;
    }
    Map<String, DeviceSyncState> stored = selectLocked(c, reports);
    Map<String, DeviceSyncState> latest = new LinkedHashMap<>();
    for (Report r : reports) {
      String id = r.state().deviceId();
      Optional<DeviceSyncState> before =
          Optional.ofNullable(latest.containsKey(id) ? latest.get(id) : stored.get(id));
      Judged j = judge(r, before);
      if (j.stored() == null) {
        out.add(new Recorded(before.get(), false, Optional.empty()));
        continue;
      }
      Optional<AlertRow> raised = raise(c, r, j);
      latest.put(id, j.stored());
      out.add(new Recorded(j.stored(), true, raised));
    }
    try (PreparedStatement update = c.prepareStatement(UPDATE);
        PreparedStatement insert = c.prepareStatement(INSERT)) {
      int updates = 0;
      int inserts = 0;
      for (Map.Entry<String, DeviceSyncState> e : latest.entrySet()) {
        if (stored.containsKey(e.getKey())) {
          bind(update, e.getValue());
          update.addBatch();
          updates++;
        } else {
          bind(insert, e.getValue());
          insert.addBatch();
          inserts++;
        }
      }
      if (updates > 0) {
        update.executeBatch();
      }
      if (inserts > 0) {
        insert.executeBatch();
      }
    }
    return out;
  }

  private static Recorded apply(Connection c, Report r) throws SQLException {
    Optional<DeviceSyncState> previous = select(c, r.state().deviceId(), true);
    Judged j = judge(r, previous);
    if (j.stored() == null) {
      return new Recorded(previous.get(), false, Optional.empty());
    }
    Optional<AlertRow> raised = raise(c, r, j);
    write(c, j.stored(), previous.isPresent());
    return new Recorded(j.stored(), true, raised);
  }

  /**
   * What a report makes of the stored state: the state to store (null for a replay, which changes
   * nothing) and whether it opens an episode that raises an alert.
   */
  private record Judged(DeviceSyncState stored, boolean alert) {}

  private static Judged judge(Report r, Optional<DeviceSyncState> previous) {
    DeviceSyncState report = r.state();
    Long highest = previous.map(DeviceSyncState::reportSeq).orElse(null);
    if (report.signed() && highest != null && report.reportSeq() <= highest) {
      return new Judged(null, false);
    }
    Long seq =
        report.signed() && (highest == null || report.reportSeq() > highest)
            ? report.reportSeq()
            : highest;
    Long alertedAt = previous.map(DeviceSyncState::alertedAt).orElse(null);
    boolean old =
        report.signed()
            && report.queueAgeMs() != null
            && report.queueAgeMs() >= r.stuckAfter().toMillis();
    boolean unmoved =
        previous.isPresent()
            && report.oldestUnsyncedAt() != null
            && report.oldestUnsyncedAt().equals(previous.get().oldestUnsyncedAt());
    Long since = previous.map(DeviceSyncState::stuckSince).orElse(null);
    boolean alert = false;
    if (!old) {
      since = null;
    } else if (unmoved && since == null) {
      since = report.reportedAt();
      if (alertedAt == null || report.reportedAt() - alertedAt >= r.alertWindow().toMillis()) {
        alertedAt = report.reportedAt();
        alert = true;
      }
    }
    return new Judged(report.withEpisode(since, seq, alertedAt), alert);
  }

  /** Stores the alert and counts the episode when {@code j} opens one. */
  private static Optional<AlertRow> raise(Connection c, Report r, Judged j) throws SQLException {
    if (!j.alert()) {
      return Optional.empty();
    }
    AlertRow alert = AlertStore.insert(c, r.alertFor().apply(j.stored()));
    Jdbc.addCounters(c, Map.of(Counter.STUCK_EPISODES.key(), 1L));
    return Optional.of(alert);
  }

  private static final String UPDATE =
      "UPDATE device_sync_state SET oldest_unsynced_at = ?, queue_age_ms = ?,"
          + " last_attempt_age_ms = ?, last_outcome = ?, reported_at = ?, stuck_since = ?,"
          + " reported_at_size = ?, report_signed = ?, report_seq = ?, alerted_at = ?"
          + " WHERE device_id = ?";

  private static final String INSERT =
      "INSERT INTO device_sync_state (oldest_unsynced_at, queue_age_ms, last_attempt_age_ms,"
          + " last_outcome, reported_at, stuck_since, reported_at_size, report_signed, report_seq,"
          + " alerted_at, device_id) VALUES (?,?,?,?,?,?,?,?,?,?,?)";

  private static Map<String, DeviceSyncState> selectLocked(Connection c, List<Report> reports)
      throws SQLException {
    String marks = String.join(",", Collections.nCopies(reports.size(), "?"));
    Map<String, DeviceSyncState> out = new HashMap<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT "
                + COLUMNS
                + " FROM device_sync_state WHERE device_id IN ("
                + marks
                + ") ORDER BY device_id FOR UPDATE")) {
      for (int i = 0; i < reports.size(); i++) {
        ps.setString(i + 1, reports.get(i).state().deviceId());
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          DeviceSyncState s = row(rs);
          out.put(s.deviceId(), s);
        }
      }
    }
    return out;
  }

  private static void write(Connection c, DeviceSyncState s, boolean exists) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(exists ? UPDATE : INSERT)) {
      bind(ps, s);
      ps.executeUpdate();
    }
  }

  /**
   * Binds a state to {@link #UPDATE} or {@link #INSERT} (the same parameters in the same order).
   */
  private static void bind(PreparedStatement ps, DeviceSyncState s) throws SQLException {
    setLong(ps, 1, s.oldestUnsyncedAt());
    setLong(ps, 2, s.queueAgeMs());
    setLong(ps, 3, s.lastAttemptAgeMs());
    ps.setString(4, s.lastOutcome());
    ps.setLong(5, s.reportedAt());
    setLong(ps, 6, s.stuckSince());
    setLong(ps, 7, s.reportedAtSize());
    ps.setBoolean(8, s.signed());
    setLong(ps, 9, s.reportSeq());
    setLong(ps, 10, s.alertedAt());
    ps.setString(11, s.deviceId());
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
        Jdbc.getLong(rs, 8),
        rs.getBoolean(9),
        Jdbc.getLong(rs, 10),
        Jdbc.getLong(rs, 11));
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
