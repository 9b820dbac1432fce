package dev.danmakuledger.server.ingest;

import dev.danmakuledger.server.storage.GapStore;
import dev.danmakuledger.server.storage.GapStore.RoomMark;
import dev.danmakuledger.server.storage.LedgerStore;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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
 * batches safe (see {@link GapStore}). A scheduled run looks at the rooms in which this instance
 * handed out numbers since the last run, and now and then at every room.
 */
public final class GapSealer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(GapSealer.class);

  /** Scheduled runs between two that look at every room. */
  public static final int SWEEP_EVERY_RUNS = 30;

  /**
   * Most rooms noted between two runs (and kept for the next run); beyond it the next run looks at
   * every room instead.
   */
  static final int MAX_NOTED = 65_536;

  private final GapStore gaps;
  private final Duration sealAfter;
  private final Clock clock;
  private ScheduledExecutorService schedule;

  /** Rooms noted since the last scheduled run. */
  private final Set<String> noted = ConcurrentHashMap.newKeySet();

  /** Rooms the last scheduled run found above their watermark; the sealer thread's only. */
  private final Set<String> looking = new HashSet<>();

  /** The next scheduled run looks at every room; the first one does. */
  private volatile boolean sweepNext = true;

  private int runsSinceSweep;

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
    return seal(gaps.roomsAboveWatermark());
  }

  /**
   * Notes rooms in which numbers were handed out (admitted batches, whether they then committed or
   * not): the rooms the next scheduled run looks at.
   */
  public void admitted(Collection<String> rooms) {
    if (noted.size() + rooms.size() > MAX_NOTED) {
      sweepNext = true;
    } else {
      noted.addAll(rooms);
    }
  }

  /**
   * What a scheduled run does: seals the rooms noted since the last run and those the last run
   * found above their watermark, so that its work grows with the rooms in use, not with every room
   * ever used; every {@link #SWEEP_EVERY_RUNS}th run, the first one and one after more than {@link
   * #MAX_NOTED} rooms were noted look at every room (numbers handed out by other instances that
   * failed before committing them, or before this instance started).
   *
   * @return how many tombstones this run wrote
   */
  public int runScheduled() {
    if (sweepNext || ++runsSinceSweep >= SWEEP_EVERY_RUNS) {
      sweepNext = false;
      runsSinceSweep = 0;
      noted.clear();
      List<RoomMark> marks = gaps.roomsAboveWatermark();
      keepLooking(marks);
      return seal(marks);
    }
    Set<String> rooms = new HashSet<>(looking);
    for (String r : noted) {
      rooms.add(r);
      noted.remove(r);
    }
    List<RoomMark> marks = rooms.isEmpty() ? List.of() : gaps.roomsAboveWatermark(rooms);
    keepLooking(marks);
    return seal(marks);
  }

  /** The rooms a run found above their watermark, looked at again by the next run. */
  private void keepLooking(List<RoomMark> marks) {
    looking.clear();
    for (RoomMark m : marks) {
      if (looking.size() >= MAX_NOTED) {
        sweepNext = true;
        break;
      }
      looking.add(m.room());
    }
  }

  private int seal(List<RoomMark> marks) {
    int sealed = gaps.seal(marks, clock.millis(), sealAfter.toMillis());
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
      runScheduled();
    } catch (RuntimeException e) {
      sweepNext = true;
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
