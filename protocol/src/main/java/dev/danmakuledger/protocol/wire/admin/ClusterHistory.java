package dev.danmakuledger.protocol.wire.admin;

import dev.danmakuledger.protocol.wire.Checks;
import java.util.List;

/**
 * Reply of {@code GET /admin/history?minutes=N}: the cluster's last {@code minutes} minutes, one
 * point per minute, oldest first, summed over every instance that sampled the minute
 * (docs/sync-server.md, "History"). The newest point is the running minute. A minute no instance
 * sampled has {@code instances = 0} and zero counts: no server was running (or none could write).
 *
 * @param minutes how many minutes were asked for (1..1440)
 * @param points one per minute
 */
public record ClusterHistory(int minutes, List<Minute> points) {
  /** Largest {@code minutes} a client may ask for: one day. */
  public static final int MAX_MINUTES = 1440;

  /** Checks that required members are present and the window is in bounds. */
  public ClusterHistory {
    if (minutes < 1 || minutes > MAX_MINUTES) {
      throw new IllegalArgumentException("minutes: got " + minutes + ", want 1.." + MAX_MINUTES);
    }
    points = Checks.list("points", points);
    if (points.size() > minutes) {
      throw new IllegalArgumentException(
          "points: got " + points.size() + ", want at most minutes = " + minutes);
    }
  }

  /**
   * One minute of the cluster.
   *
   * @param minute start of the minute (ISO-8601)
   * @param instances instances that sampled this minute
   * @param batches batches stored
   * @param records record outcomes of those batches, every kind
   * @param confirmed records numbered and broadcast
   * @param pending records held for review
   * @param duplicates records whose key was already stored (Redis or SQL caught it)
   * @param conflicts records whose key was stored with other content
   * @param rejected records refused
   * @param subscribers sum over instances of each one's peak open room-stream subscribers
   * @param admitMsPerBatch mean Redis admit time per batch, milliseconds (0 without batches)
   * @param commitMsPerBatch mean SQL commit time per batch, milliseconds (0 without batches)
   */
  public record Minute(
      String minute,
      int instances,
      long batches,
      long records,
      long confirmed,
      long pending,
      long duplicates,
      long conflicts,
      long rejected,
      long subscribers,
      double admitMsPerBatch,
      double commitMsPerBatch) {
    /** Checks that required members are present and counts are not negative. */
    public Minute {
      Checks.required("minute", minute);
      Checks.nonNegative("instances", instances);
      Checks.nonNegative("batches", batches);
      Checks.nonNegative("records", records);
      Checks.nonNegative("confirmed", confirmed);
      Checks.nonNegative("pending", pending);
      Checks.nonNegative("duplicates", duplicates);
      Checks.nonNegative("conflicts", conflicts);
      Checks.nonNegative("rejected", rejected);
      Checks.nonNegative("subscribers", subscribers);
      if (!(admitMsPerBatch >= 0) || !(commitMsPerBatch >= 0)) {
        throw new IllegalArgumentException(
            "admitMsPerBatch, commitMsPerBatch: got "
                + admitMsPerBatch
                + ", "
                + commitMsPerBatch
                + ", want >= 0");
      }
    }
  }
}
