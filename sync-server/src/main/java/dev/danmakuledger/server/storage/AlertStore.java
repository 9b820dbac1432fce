package dev.danmakuledger.server.storage;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/** The alerts ingest raises (forks, bad signatures, bad proofs), newest first for the console. */
final class AlertStore {
  private final Jdbc jdbc;

  AlertStore(Jdbc jdbc) {
    this.jdbc = jdbc;
  }

  /** Stores an alert and returns it with its id. */
  public AlertRow insert(AlertRow alert) {
    return jdbc.inTransaction(c -> insert(c, alert));
  }

  static AlertRow insert(Connection c, AlertRow a) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO alerts (type, severity, device_id, room, message, data_json, at)"
                + " VALUES (?,?,?,?,?,?,?)",
            Statement.RETURN_GENERATED_KEYS)) {
      ps.setString(1, a.type());
      ps.setString(2, a.severity());
      ps.setString(3, a.deviceId());
      ps.setString(4, a.room());
      ps.setString(5, a.message());
      ps.setString(6, a.dataJson());
      ps.setLong(7, a.at());
      ps.executeUpdate();
      try (ResultSet keys = ps.getGeneratedKeys()) {
        if (!keys.next()) {
          throw new IllegalStateException("alerts: got no generated id, want one");
        }
        return new AlertRow(
            keys.getLong(1),
            a.type(),
            a.severity(),
            a.deviceId(),
            a.room(),
            a.message(),
            a.dataJson(),
            a.at());
      }
    }
  }

  /** The newest alerts, newest first. */
  public List<AlertRow> newest(int limit) {
    return jdbc.query(
        "SELECT id, type, severity, device_id, room, message, data_json, at FROM alerts"
            + " ORDER BY id DESC LIMIT "
            + Jdbc.positive(limit),
        ps -> {},
        rs ->
            new AlertRow(
                rs.getLong(1),
                rs.getString(2),
                rs.getString(3),
                rs.getString(4),
                rs.getString(5),
                rs.getString(6),
                rs.getString(7),
                rs.getLong(8)));
  }

  public long count() {
    return jdbc.queryOne("SELECT COUNT(*) FROM alerts", ps -> {}, rs -> rs.getLong(1)).orElse(0L);
  }
}
