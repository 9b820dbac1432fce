package dev.danmakuledger.ui.history;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The console's own memory (docs/console.md, "What stays current, and what happens when the server
 * is gone"): overview samples for the charts and the last state of every view, in an embedded H2
 * file, so both survive restarts and server outages. This is the console's private file, never the
 * server's database. Thread-safe.
 */
public final class HistoryStore implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(HistoryStore.class);
  private static final int MAX_SNAPSHOT_CHARS = 8 * 1024 * 1024;

  private final Connection connection;
  private final ObjectMapper mapper;

  private HistoryStore(Connection connection, ObjectMapper mapper) throws SQLException {
    this.connection = connection;
    this.mapper = mapper;
    try (Statement s = connection.createStatement()) {
      s.execute(
          "CREATE TABLE IF NOT EXISTS overview_sample (at_ms BIGINT PRIMARY KEY,"
              + " records_per_second DOUBLE NOT NULL, outcomes BIGINT NOT NULL,"
              + " duplicates BIGINT NOT NULL, alerts BIGINT NOT NULL)");
      s.execute(
          "CREATE TABLE IF NOT EXISTS snapshot (name VARCHAR(64) PRIMARY KEY,"
              + " at_ms BIGINT NOT NULL, body CLOB NOT NULL)");
    }
  }

  /**
   * Opens (creating if needed) the history file {@code dir/history.mv.db}.
   *
   * @throws HistoryException if the file cannot be opened, e.g. another console holds it
   */
  public static HistoryStore open(Path dir, ObjectMapper mapper) {
    String url = "jdbc:h2:file:" + dir.toAbsolutePath().resolve("history");
    try {
      return new HistoryStore(DriverManager.getConnection(url, "sa", ""), mapper);
    } catch (SQLException e) {
      throw new HistoryException("cannot open history " + url + ": " + e.getMessage(), e);
    }
  }

  /** A history that lives only as long as this process (tests, or a locked history file). */
  public static HistoryStore inMemory(ObjectMapper mapper) {
    String url = "jdbc:h2:mem:";
    try {
      return new HistoryStore(DriverManager.getConnection(url, "sa", ""), mapper);
    } catch (SQLException e) {
      throw new HistoryException("cannot open in-memory history: " + e.getMessage(), e);
    }
  }

  /** Stores a chart point; a second point for the same millisecond replaces the first. */
  public synchronized void record(OverviewSample s) {
    try (PreparedStatement ps =
        connection.prepareStatement(
            "MERGE INTO overview_sample KEY (at_ms) VALUES (?, ?, ?, ?, ?)")) {
      ps.setLong(1, s.at().toEpochMilli());
      ps.setDouble(2, s.recordsPerSecond());
      ps.setLong(3, s.outcomes());
      ps.setLong(4, s.duplicates());
      ps.setLong(5, s.alerts());
      ps.executeUpdate();
    } catch (SQLException e) {
      throw new HistoryException("cannot store overview sample: " + e.getMessage(), e);
    }
  }

  /** Chart points taken at or after {@code since}, oldest first. */
  public synchronized List<OverviewSample> samplesSince(Instant since) {
    List<OverviewSample> out = new ArrayList<>();
    try (PreparedStatement ps =
        connection.prepareStatement(
            "SELECT at_ms, records_per_second, outcomes, duplicates, alerts FROM overview_sample"
                + " WHERE at_ms >= ? ORDER BY at_ms")) {
      ps.setLong(1, since.toEpochMilli());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(
              new OverviewSample(
                  Instant.ofEpochMilli(rs.getLong(1)),
                  rs.getDouble(2),
                  rs.getLong(3),
                  rs.getLong(4),
                  rs.getLong(5)));
        }
      }
    } catch (SQLException e) {
      throw new HistoryException("cannot read overview samples: " + e.getMessage(), e);
    }
    return out;
  }

  /** Deletes chart points older than {@code before}; returns how many. */
  public synchronized int prune(Instant before) {
    try (PreparedStatement ps =
        connection.prepareStatement("DELETE FROM overview_sample WHERE at_ms < ?")) {
      ps.setLong(1, before.toEpochMilli());
      return ps.executeUpdate();
    } catch (SQLException e) {
      throw new HistoryException("cannot prune overview samples: " + e.getMessage(), e);
    }
  }

  /** Remembers the last state of a view under {@code name}, as JSON. */
  public synchronized void save(String name, Instant at, Object value) {
    String json;
    try {
      json = mapper.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("cannot encode " + name + " snapshot", e);
    }
    try (PreparedStatement ps =
        connection.prepareStatement("MERGE INTO snapshot KEY (name) VALUES (?, ?, ?)")) {
      ps.setString(1, name);
      ps.setLong(2, at.toEpochMilli());
      ps.setString(3, json);
      ps.executeUpdate();
    } catch (SQLException e) {
      throw new HistoryException("cannot store snapshot " + name + ": " + e.getMessage(), e);
    }
  }

  /**
   * The last state saved under {@code name}; empty when there is none or it no longer decodes as
   * {@code type} (an older console version wrote it).
   */
  public synchronized <T> Optional<Stamped<T>> load(String name, Class<T> type) {
    try (PreparedStatement ps =
        connection.prepareStatement("SELECT at_ms, body FROM snapshot WHERE name = ?")) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        Instant at = Instant.ofEpochMilli(rs.getLong(1));
        String body = rs.getString(2);
        if (body.length() > MAX_SNAPSHOT_CHARS) {
          log.warn("ignoring snapshot {}: {} chars", name, body.length());
          return Optional.empty();
        }
        return Optional.of(new Stamped<>(at, mapper.readValue(body, type)));
      }
    } catch (SQLException e) {
      throw new HistoryException("cannot read snapshot " + name + ": " + e.getMessage(), e);
    } catch (JsonProcessingException | RuntimeException e) {
      log.warn("ignoring unreadable snapshot {}: {}", name, e.getMessage());
      return Optional.empty();
    }
  }

  @Override
  public synchronized void close() {
    try {
      connection.close();
    } catch (SQLException e) {
      log.warn("closing history: {}", e.getMessage());
    }
  }
}
