package dev.danmakuledger.server.roomlog;

import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.Checkpoints;
import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import dev.danmakuledger.merkle.tiles.TileException;
import dev.danmakuledger.merkle.tiles.TileSource;
import dev.danmakuledger.protocol.room.RoomLog;
import dev.danmakuledger.server.storage.DamagedRowException;
import dev.danmakuledger.server.storage.LogSlot;
import dev.danmakuledger.server.storage.RoomLogRow;
import dev.danmakuledger.server.storage.RoomLogStore;
import dev.danmakuledger.server.storage.RoomTile;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Integrates committed room slots into each room's transparency log and publishes its checkpoint
 * (docs/room-log.md, "Integration"; the sequence → integrate → publish split of Tessera), off the
 * request path on a scheduled thread. A room log grows in seq order only: a step appends the run of
 * committed slots directly above the log's size and stops at the first number that is neither a
 * committed message nor a tombstone (the gap sealer bounds that wait). A step stores the full tiles
 * completed, the partial tiles of the new size and the checkpoint of that size, signed with the log
 * key, under the room's row lock; so whichever instance wins the lock extends the log (a scheduled
 * run passes over rooms another instance is stepping and looks at them again next run; {@link
 * #integrateNow()} waits for them), and a restart resumes from the stored partial tiles. One run
 * steps every room that is behind and due in SQL transactions of at most {@value #ROOMS_PER_STEP}
 * rooms (one commit for many rooms, not one a room), spread over half the interval (at most a
 * second) when there are several; if one fails, its rooms are stepped in a transaction each, so
 * that one room cannot hold back the others.
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

  /** Most committed slots held in memory for the next runs, over all rooms. */
  static final int MAX_RECENT = 65_536;

  /**
   * Most rooms whose log writer (the right edge of the tree, at most one partial tile per level) is
   * kept between runs; the least recently stepped room beyond it, or beyond {@link #MAX_TIP_BYTES},
   * is resumed from its stored tiles when it next grows.
   */
  static final int MAX_TIPS = 65_536;

  /**
   * Most heap the kept writers hold together ({@link LogWriter#retainedBytes}, about): many rooms
   * of a few entries fit, and a few thousand rooms with nearly full partial bundles.
   */
  static final long MAX_TIP_BYTES = 64L << 20;

  /**
   * Most rooms one transaction steps. A scheduled run with more rooms behind spreads its
   * transactions over half the interval, at most {@link #MAX_SPREAD}, so that the work of many
   * rooms does not arrive at once.
   */
  static final int ROOMS_PER_STEP = 64;

  /** The longest time a scheduled run spreads its transactions over. */
  static final Duration MAX_SPREAD = Duration.ofSeconds(1);

  /** Scheduled runs between two that look at every room. */
  static final int SWEEP_EVERY_RUNS = 30;

  /**
   * Most rooms handed over between two runs (and kept for the next run); beyond it the next run
   * looks at every room instead.
   */
  static final int MAX_NOTED = 65_536;

  private record Tip(long version, LogWriter writer) {}

  private final RoomLogStore store;
  private final NoteSigner logSigner;
  private final Duration interval;
  private volatile Consumer<DamagedRowException> damage = d -> {};
  private final Clock clock;
  private final LruMap<String, Tip> tips =
      new LruMap<>(MAX_TIPS, MAX_TIP_BYTES, t -> t.writer().retainedBytes());
  private final Object runLock = new Object();
  private final Object pacing = new Object();
  private final RecentSlots recent = new RecentSlots(MAX_RECENT);
  private volatile boolean holding;

  /** Rooms handed over since the last scheduled run, with the highest number handed over. */
  private final Map<String, Long> handed = new ConcurrentHashMap<>();

  /**
   * Rooms the last run found behind, with the highest committed number it knew of, looked at again
   * by the next one; under {@code runLock}.
   */
  private final Map<String, Long> lagging = new HashMap<>();

  /** The next scheduled run looks at every room; the first one does. */
  private volatile boolean sweepNext = true;

  private int runsSinceSweep;
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

  /** Hands every damaged stored row a run meets to {@code sink} (operator alerts). */
  public RoomLogIntegrator reportingDamageTo(Consumer<DamagedRowException> sink) {
    this.damage = Objects.requireNonNull(sink, "sink");
    return this;
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
    holding = true;
    long period = interval.toMillis();
    executor.scheduleWithFixedDelay(this::runScheduled, period, period, TimeUnit.MILLISECONDS);
  }

  /**
   * A scheduled run: integrates the rooms that are behind and due. Package-private so that tests
   * run the schedule by hand instead of waiting for it.
   *
   * @return how many entries this run appended, over all rooms; 0 when it failed (logged)
   */
  long runScheduled() {
    try {
      return run(false);
    } catch (RuntimeException e) {
      sweepNext = true;
      log.warn("room log integration failed, retrying next run: {}", e.toString());
      return 0;
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

  /**
   * Hands over slots of {@code room} that a transaction of this instance committed, so that the
   * next run extends the log from memory rather than reading them back; ignored until {@link
   * #start()} and after {@link #close()}.
   */
  public void committed(String room, List<LogSlot> slots) {
    if (holding && !slots.isEmpty()) {
      recent.offer(room, slots);
      long top = slots.stream().mapToLong(LogSlot::seq).max().orElseThrow();
      if (handed.size() >= MAX_NOTED) {
        sweepNext = true;
      } else {
        handed.merge(room, top, Math::max);
      }
    }
  }

  /**
   * Slots held in memory now, over all rooms. Package-private for tests: what a run forgets is not
   * visible in the logs it writes, only in the memory it keeps.
   */
  int slotsHeld() {
    return recent.size();
  }

  /**
   * The progress of the rooms a run looks at: every room when forced, on the first run, every
   * {@link #SWEEP_EVERY_RUNS}th one and after a failure; otherwise the rooms handed over since the
   * last run and those the last run found behind, so that a run's work follows the rooms in use.
   * Their highest numbers are the highest handed over and those the last run knew of, not read from
   * SQL: numbers another instance committed above them, and rooms only another instance commits to,
   * are found by the sweeps (that instance integrates them meanwhile).
   */
  private SortedMap<String, RoomLogStore.Progress> progress(boolean force) {
    if (force || sweepNext || ++runsSinceSweep >= SWEEP_EVERY_RUNS) {
      sweepNext = false;
      runsSinceSweep = 0;
      handed.clear();
      return store.progress();
    }
    Map<String, Long> highest = new HashMap<>(lagging);
    for (String room : handed.keySet()) {
      Long top = handed.remove(room);
      if (top != null) {
        highest.merge(room, top, Math::max);
      }
    }
    SortedMap<String, RoomLogStore.Progress> out = new TreeMap<>();
    if (!highest.isEmpty()) {
      store
          .sizes(highest.keySet())
          .forEach(
              (room, size) -> out.put(room, new RoomLogStore.Progress(size, highest.get(room))));
    }
    return out;
  }

  private long run(boolean force) {
    SortedMap<String, Long> behind;
    synchronized (runLock) {
      behind = behind(force);
    }
    List<List<String>> chunks = chunks(behind.keySet());
    long spread = Math.min(interval.toMillis() / 2, MAX_SPREAD.toMillis());
    long pause = chunks.size() < 2 ? 0 : spread / chunks.size();
    long appended = 0;
    for (int i = 0; i < chunks.size(); i++) {
      if (i > 0 && !force && !pause(pause)) {
        // closing: the rooms left are behind for the next instance or start
        break;
      }
      synchronized (runLock) {
        appended += stepChunk(chunks.get(i), behind, force);
      }
    }
    return appended;
  }

  /** The rooms a run looks at that are behind, with the highest committed number of each. */
  private SortedMap<String, Long> behind(boolean force) {
    SortedMap<String, Long> behind = new TreeMap<>();
    for (Map.Entry<String, RoomLogStore.Progress> e : progress(force).entrySet()) {
      RoomLogStore.Progress p = e.getValue();
      // forgotten here too, not only after a step: another instance may be the one extending
      recent.forgetUpTo(e.getKey(), p.size());
      if (p.isBehind()) {
        behind.put(e.getKey(), p.highest());
      }
    }
    lagging.clear();
    for (Map.Entry<String, Long> e : behind.entrySet()) {
      if (lagging.size() >= MAX_NOTED) {
        sweepNext = true;
        break;
      }
      lagging.put(e.getKey(), e.getValue());
    }
    return behind;
  }

  /** {@code rooms} in name order, at most {@link #ROOMS_PER_STEP} a chunk. */
  private static List<List<String>> chunks(Collection<String> rooms) {
    List<List<String>> out = new ArrayList<>();
    List<String> chunk = new ArrayList<>();
    for (String room : rooms) {
      chunk.add(room);
      if (chunk.size() == ROOMS_PER_STEP) {
        out.add(chunk);
        chunk = new ArrayList<>();
      }
    }
    if (!chunk.isEmpty()) {
      out.add(chunk);
    }
    return out;
  }

  /** One transaction for {@code rooms}; if it fails, one transaction a room. */
  private long stepChunk(List<String> rooms, Map<String, Long> highest, boolean force) {
    Map<String, Long> added;
    try {
      added = step(rooms, highest, force);
    } catch (RuntimeException e) {
      log.warn(
          "room log integration of {} rooms in one transaction failed, integrating each alone: {}",
          rooms.size(),
          e.toString());
      return eachAlone(rooms, force);
    }
    long appended = 0;
    for (Map.Entry<String, Long> e : added.entrySet()) {
      appended += e.getValue();
      if (force && e.getValue() == STEP_SLOTS) {
        appended += integrate(e.getKey(), true, MAX_STEPS - 1);
      }
    }
    return appended;
  }

  /** Waits {@code millis} between two chunks of a scheduled run; false when closing. */
  private boolean pause(long millis) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    synchronized (pacing) {
      long left;
      while (holding && (left = deadline - System.nanoTime()) > 0) {
        try {
          TimeUnit.NANOSECONDS.timedWait(pacing, left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
    }
    return holding;
  }

  /** One transaction per room, so that one room whose step fails holds back no other. */
  private long eachAlone(Collection<String> rooms, boolean force) {
    long appended = 0;
    for (String room : rooms) {
      try {
        appended += integrate(room, force);
      } catch (RuntimeException e) {
        log.warn("room log integration of {} failed, retrying next run: {}", room, e.toString());
        DamagedRowException damaged = DamagedRowException.in(e);
        if (damaged != null) {
          damage.accept(damaged);
        }
      }
    }
    return appended;
  }

  /** Integrates one room; returns how many entries were appended. */
  long integrate(String room, boolean force) {
    return integrate(room, force, MAX_STEPS);
  }

  private long integrate(String room, boolean force, int maxSteps) {
    long appended = 0;
    for (int step = 0; step < maxSteps; step++) {
      long added = step(List.of(room), Map.of(), force).getOrDefault(room, 0L);
      appended += added;
      if (added < STEP_SLOTS) {
        break;
      }
    }
    return appended;
  }

  /**
   * One integration step of {@code rooms} in one transaction.
   *
   * @param highest the highest committed number of each room as last read, where known: a room
   *     whose held slots reach it needs no read of SQL
   * @return how many entries each room that was written got
   */
  private Map<String, Long> step(
      Collection<String> rooms, Map<String, Long> highest, boolean force) {
    Map<String, Tip> taken = new HashMap<>();
    for (String room : rooms) {
      Tip tip = tips.remove(room);
      if (tip != null) {
        taken.put(room, tip);
      }
    }
    Map<String, Long> added = new HashMap<>();
    Map<String, Tip> used = new HashMap<>();
    Map<String, RoomLogRow> heads;
    try {
      heads =
          store.integrate(
              rooms,
              STEP_SLOTS,
              force ? RoomLogStore.Contended.WAIT : RoomLogStore.Contended.SKIP,
              new RoomLogStore.Step() {
                @Override
                public boolean due(RoomLogRow current) {
                  return force || clock.millis() - current.publishedAt() >= interval.toMillis();
                }

                @Override
                public RoomLogStore.Held held(RoomLogRow current) {
                  String room = current.room();
                  List<LogSlot> run = recent.runAbove(room, current.size(), STEP_SLOTS);
                  long full = current.size() + STEP_SLOTS;
                  Long top = highest.get(room);
                  return new RoomLogStore.Held(run, top == null ? full : Math.min(top, full));
                }

                @Override
                public Optional<RoomLogStore.Extension> extend(
                    RoomLogRow current, List<LogSlot> slots, TileSource stored)
                    throws IOException, TileException {
                  String room = current.room();
                  LogWriter w = writerFor(current, taken.get(room), stored);
                  used.put(room, new Tip(current.version(), w));
                  Optional<RoomLogStore.Extension> x =
                      RoomLogIntegrator.this.extend(room, current, slots, w);
                  x.ifPresent(e -> added.put(room, e.size() - current.size()));
                  return x;
                }
              });
    } catch (RuntimeException e) {
      // the transaction rolled back: writers that were extended are ahead of the stored logs, and
      // the next step resumes those rooms from the stored tiles; the others keep their tips
      taken.keySet().removeAll(used.keySet());
      tips.putAll(taken);
      throw e;
    }
    for (String room : rooms) {
      Tip u = used.get(room);
      RoomLogRow head = heads.get(room);
      if (u != null && head != null) {
        tips.put(room, new Tip(head.version(), u.writer()));
        recent.forgetUpTo(room, head.size());
      } else if (u != null) {
        tips.put(room, u);
      } else if (taken.containsKey(room)) {
        tips.put(room, taken.get(room));
      }
    }
    return added;
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
      String room, RoomLogRow current, List<LogSlot> slots, LogWriter w) {
    List<RoomTile> tiles = new ArrayList<>();
    long expected = current.size() + 1;
    for (LogSlot slot : slots) {
      if (slot.seq() != expected) {
        break;
      }
      Optional<byte[]> entry = SlotEntries.encoded(slot);
      if (entry.isEmpty()) {
        break;
      }
      tiles.addAll(w.append(entry.get()));
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
    return Optional.of(new RoomLogStore.Extension(size, root, checkpoint, now, tiles));
  }

  /**
   * Stops the schedule and waits for a run in progress. The thread is not interrupted: an interrupt
   * during H2 file I/O closes the database file for every user of it.
   */
  @Override
  public synchronized void close() {
    holding = false;
    synchronized (pacing) {
      pacing.notifyAll();
    }
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
