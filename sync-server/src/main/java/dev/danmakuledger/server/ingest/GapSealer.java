package dev.danmakuledger.server.ingest;

import dev.danmakuledger.server.storage.GapStore;
import dev.danmakuledger.server.storage.GapStore.RoomMark;
import dev.danmakuledger.server.storage.LedgerStore;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gap sealer (docs/architecture.md §5): turns every hole in a room's numbering — a number below
 * the room's high-water mark that is neither a message nor a tombstone, because the batch it was
 * handed to failed, forked or was renumbered — into a TOMBSTONE once it is older than {@code
 * sealAfter}, so that every number 1..high is accounted for. Runs off the request path on a
 * schedule, on every instance; SQL's primary key (room, seq) makes concurrent sealers and late
 * batches safe (see {@link GapStore}).
 */
public final class GapSealer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(GapSealer.class);

  private final GapStore gaps;
  private final Duration sealAfter;
  private final Clock clock;
  private ScheduledExecutorService schedule;

  public GapSealer(LedgerStore store, Duration sealAfter, Clock clock) {
    this.gaps = Objects.requireNonNull(store, "store").gaps();
    this.sealAfter = Objects.requireNonNull(sealAfter, "sealAfter");
    this.clock = Objects.requireNonNull(clock, "clock");
    if (sealAfter.isNegative() || sealAfter.isZero()) {
      throw new IllegalArgumentException("sealAfter: got " + sealAfter + ", want > 0");
    }
  }

  /**
   * Seals, once, every hole older than {@code sealAfter} in every room.
   *
   * @return how many tombstones this run wrote
   * @throws dev.danmakuledger.server.storage.StorageUnavailableException when SQL is unreachable
   */
  public int runOnce() {
    long now = clock.millis();
    int sealed = 0;
    for (RoomMark mark : gaps.roomsAboveWatermark()) {
      sealed += gaps.seal(mark, now, sealAfter.toMillis());
    }
    if (sealed > 0) {
      log.info("sealed {} room numbers older than {} as tombstones", sealed, sealAfter);
    }
    return sealed;
  }

  /** Runs {@link #runOnce} every {@code period} from now on, until {@link #close}. */
  public synchronized void start(Duration period) {
    if (schedule != null) {
      throw new IllegalStateException("gap sealer: already started");
    }
    schedule =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "gap-sealer");
              t.setDaemon(true);
              return t;
            });
    long millis = Math.max(1, period.toMillis());
    schedule.scheduleWithFixedDelay(this::runLogged, millis, millis, TimeUnit.MILLISECONDS);
  }

  /** The period the server runs the sealer at: a third of the seal age, 1 s to 30 s. */
  public Duration defaultPeriod() {
    long third = sealAfter.toMillis() / 3;
    return Duration.ofMillis(Math.max(1_000, Math.min(30_000, third)));
  }

  private void runLogged() {
    try {
      runOnce();
    } catch (RuntimeException e) {
      log.warn("gap sealer run failed (retried next period): {}", e.toString());
    }
  }

  /**
   * Stops the schedule and waits for a run in progress. The thread is not interrupted: an interrupt
   * during H2 file I/O closes the database file for every user of it.
   */
  @Override
  public synchronized void close() {
    if (schedule != null) {
      schedule.shutdown();
      try {
        if (!schedule.awaitTermination(30, TimeUnit.SECONDS)) {
          log.warn("gap sealer run still going at close");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
