package dev.danmakuledger.server.roomlog;

import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.Checkpoints;
import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import dev.danmakuledger.merkle.tiles.TileException;
import dev.danmakuledger.merkle.tiles.TileSource;
import dev.danmakuledger.protocol.room.RoomLog;
import dev.danmakuledger.protocol.room.RoomLogEntry;
import dev.danmakuledger.server.storage.LogSlot;
import dev.danmakuledger.server.storage.RoomLogRow;
import dev.danmakuledger.server.storage.RoomLogStore;
import dev.danmakuledger.server.storage.RoomTile;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Integrates committed room slots into each room's transparency log and publishes its checkpoint
 * (docs/room-log.md, "Integration"; the sequence → integrate → publish split of Tessera), off the
 * request path on a scheduled thread. A room log grows in seq order only: a step appends the run of
 * committed slots directly above the log's size and stops at the first number that is neither a
 * committed message nor a tombstone (the gap sealer bounds that wait). Each step is one SQL
 * transaction under the room's row lock that stores the full tiles completed, the partial tiles of
 * the new size and the checkpoint of that size, signed with the log key; so whichever instance wins
 * the lock extends the log, and a restart resumes from the stored partial tiles.
 *
 * <p>A room's checkpoint is signed at most once per {@code interval} (shared by all instances
 * through {@code room_logs.published_at}); {@link #integrateNow()} ignores the interval.
 */
public final class RoomLogIntegrator implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(RoomLogIntegrator.class);

  /** Most slots read by one step; a longer backlog takes several steps of one run. */
  static final int STEP_SLOTS = 4096;

  /** Most steps per room per run, so that one room cannot starve the others. */
  static final int MAX_STEPS = 64;

  private record Tip(long version, LogWriter writer) {}

  private final RoomLogStore store;
  private final NoteSigner logSigner;
  private final Duration interval;
  private final Clock clock;
  private final Map<String, Tip> tips = new ConcurrentHashMap<>();
  private final Object runLock = new Object();
  private ScheduledExecutorService executor;

  public RoomLogIntegrator(
      RoomLogStore store, NoteSigner logSigner, Duration interval, Clock clock) {
    this.store = Objects.requireNonNull(store, "store");
    this.logSigner = Objects.requireNonNull(logSigner, "logSigner");
    this.interval = Objects.requireNonNull(interval, "interval");
    this.clock = Objects.requireNonNull(clock, "clock");
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("interval: got " + interval + ", want > 0");
    }
  }

  /** Runs {@link #runScheduled()} every {@code interval} on a daemon thread. */
  public synchronized void start() {
    if (executor != null) {
      throw new IllegalStateException("room log integrator: already started");
    }
    executor =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "room-log-integrator");
              t.setDaemon(true);
              return t;
            });
    long period = interval.toMillis();
    executor.scheduleWithFixedDelay(this::runScheduled, period, period, TimeUnit.MILLISECONDS);
  }

  private void runScheduled() {
    try {
      run(false);
    } catch (RuntimeException e) {
      log.warn("room log integration failed, retrying next run: {}", e.toString());
    }
  }

  /**
   * Integrates every room that is behind and publishes its checkpoint now, whatever the interval.
   *
   * @return how many entries this run appended, over all rooms
   */
  public long integrateNow() {
    return run(true);
  }

  private long run(boolean force) {
    synchronized (runLock) {
      long appended = 0;
      for (String room : store.roomsBehind()) {
        appended += integrate(room, force);
      }
      return appended;
    }
  }

  /** Integrates one room; returns how many entries were appended. */
  long integrate(String room, boolean force) {
    long appended = 0;
    for (int step = 0; step < MAX_STEPS; step++) {
      long before = appended;
      Optional<RoomLogRow> head;
      Tip tip = tips.remove(room);
      long[] added = new long[1];
      long[] version = new long[1];
      LogWriter[] used = new LogWriter[1];
      head =
          store.integrate(
              room,
              STEP_SLOTS,
              (current, slots, stored) -> {
                version[0] = current.version();
                if (!force && clock.millis() - current.publishedAt() < interval.toMillis()) {
                  return Optional.empty();
                }
                LogWriter w = writerFor(current, tip, stored);
                used[0] = w;
                return extend(room, current, slots, w, added);
              });
      if (head.isPresent() && used[0] != null) {
        tips.put(room, new Tip(head.get().version(), used[0]));
      } else if (used[0] != null) {
        tips.put(room, new Tip(version[0], used[0]));
      } else if (tip != null) {
        tips.put(room, tip);
      }
      appended += added[0];
      if (head.isEmpty() || appended - before < STEP_SLOTS) {
        break;
      }
    }
    return appended;
  }

  private static LogWriter writerFor(RoomLogRow current, Tip tip, TileSource stored)
      throws IOException, TileException {
    if (tip != null
        && tip.version() == current.version()
        && tip.writer().size() == current.size()) {
      return tip.writer();
    }
    return LogWriter.resume(current.size(), stored);
  }

  private Optional<RoomLogStore.Extension> extend(
      String room, RoomLogRow current, List<LogSlot> slots, LogWriter w, long[] added) {
    List<RoomTile> tiles = new ArrayList<>();
    long expected = current.size() + 1;
    for (LogSlot slot : slots) {
      if (slot.seq() != expected) {
        break;
      }
      Optional<RoomLogEntry> entry = SlotEntries.of(slot);
      if (entry.isEmpty()) {
        break;
      }
      tiles.addAll(w.append(entry.get().encode()));
      expected++;
    }
    long size = w.size();
    if (size == current.size() && current.checkpoint() != null) {
      return Optional.empty();
    }
    tiles.addAll(w.partials());
    long now = clock.millis();
    byte[] root = w.root();
    String checkpoint =
        Checkpoints.sign(new Checkpoint(RoomLog.origin(room), size, root), logSigner);
    added[0] = size - current.size();
    return Optional.of(new RoomLogStore.Extension(size, root, checkpoint, now, tiles));
  }

  /**
   * Stops the schedule and waits for a run in progress. The thread is not interrupted: an interrupt
   * during H2 file I/O closes the database file for every user of it.
   */
  @Override
  public synchronized void close() {
    if (executor != null) {
      executor.shutdown();
      try {
        if (!executor.awaitTermination(30, TimeUnit.SECONDS)) {
          log.warn("room log integration still running at close");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
