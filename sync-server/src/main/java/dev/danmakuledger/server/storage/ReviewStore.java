package dev.danmakuledger.server.storage;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The review transition of the message state machine (docs/architecture.md §5): PENDING → CONFIRMED
 * | REJECTED by compare-and-set on the version column, together with what follows from it — the
 * message leaving the review queue, the confirmation cursor of an approved message and the counters
 * — in one transaction, so that a failure leaves the message PENDING and queued with nothing
 * counted.
 */
public final class ReviewStore {
  /** Attempts of a decision whose transaction the database aborted to break a deadlock. */
  private static final int MAX_ATTEMPTS = 3;

  private final DataSource ds;
  private final Clock clock;

  public ReviewStore(Database db, Clock clock) {
    this.ds = db.dataSource();
    this.clock = clock;
  }

  /**
   * Moves a PENDING message to {@code to} and adds {@code counters}, atomically.
   *
   * @return the updated row, or empty when no message has this id
   * @throws VersionConflictException when the message is not PENDING at {@code expectedVersion};
   *     nothing was changed
   */
  public Optional<MessageRow> decide(
      long messageId,
      MessageStatus to,
      long expectedVersion,
      String reason,
      Map<String, Long> counters)
      throws VersionConflictException {
    if (to != MessageStatus.CONFIRMED && to != MessageStatus.REJECTED) {
      throw new IllegalArgumentException("to: got " + to + ", want CONFIRMED or REJECTED");
    }
    Outcome o = null;
    for (int attempt = 1; o == null; attempt++) {
      try {
        o = transition(messageId, to, expectedVersion, reason, counters);
      } catch (RuntimeException e) {
        if (attempt >= MAX_ATTEMPTS || !Jdbc.isDeadlock(e)) {
          throw e;
        }
      }
    }
    if (!o.changed() && o.row().isPresent()) {
      throw new VersionConflictException(o.row().get(), expectedVersion);
    }
    return o.row();
  }

  private Outcome transition(
      long messageId,
      MessageStatus to,
      long expectedVersion,
      String reason,
      Map<String, Long> counters) {
    return Jdbc.inTransaction(
        ds,
        "review of message " + messageId,
        c -> {
          int n;
          try (PreparedStatement ps =
              c.prepareStatement(
                  "UPDATE messages SET status = ?, reason = ?, version = version + 1,"
                      + " updated_at = ? WHERE message_id = ? AND status = 'PENDING'"
                      + " AND version = ?")) {
            ps.setString(1, to.name());
            ps.setString(2, reason);
            ps.setLong(3, clock.millis());
            ps.setLong(4, messageId);
            ps.setLong(5, expectedVersion);
            n = ps.executeUpdate();
          }
          Optional<MessageRow> now = byId(c, messageId);
          if (n == 1) {
            MessageRow decided = now.orElseThrow();
            MessageStore.unqueue(c, decided.room(), decided.seq());
            if (to == MessageStatus.CONFIRMED) {
              ConfirmedCursors.assign(c, List.of(decided));
            }
            Jdbc.addCounters(c, counters);
          }
          return new Outcome(n == 1, now);
        });
  }

  private record Outcome(boolean changed, Optional<MessageRow> row) {}

  private static Optional<MessageRow> byId(Connection c, long messageId) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT " + MessageRows.COLUMNS + " FROM messages WHERE message_id = ?")) {
      ps.setLong(1, messageId);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(MessageRows.read(rs)) : Optional.empty();
      }
    }
  }
}
