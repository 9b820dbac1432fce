package dev.danmakuledger.server.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The loop of one relay shard this instance runs, on a thread of its own (docs/kafka.md, "Exactly
 * once"): it starts its next transaction as soon as the last one ended and one of its rooms is
 * known to hold more, whatever the other shards do. It learns the rooms' heads from this instance's
 * commits ({@link #offer}) and from the relay's periodic read of every room's head ({@link
 * #offerAll}); while a transaction commits, it already reads and encodes the next one's messages
 * when a room holds more than the transaction took.
 */
final class ShardLoop {
  private static final Logger log = LoggerFactory.getLogger(ShardLoop.class);

  /** What the loop reports back to the relay. */
  interface Outcome {
    /**
     * A step succeeded: Kafka answered, and a transaction of {@code records} messages committed.
     */
    void succeeded(int records);

    /** The shard was fenced by a newer owner. */
    void fenced(KafkaException e);

    /** Kafka failed. */
    void failed(KafkaException e);

    /** SQL or something else failed. */
    void broken(RuntimeException e);

    /** The loop saw {@code room} at {@code head} with committed position {@code position}. */
    void saw(String room, long head, long position);
  }

  private final ShardRelay relay;
  private final RelayFeed feed;
  private final int budget;
  private final Duration retry;
  private final RelayPhases phases;
  private final ExecutorService prefetcher;
  private final Outcome outcome;
  private final Thread thread;

  // guarded by this
  private final Map<String, Long> heads = new HashMap<>();
  private final Set<String> unknown = new HashSet<>();
  private boolean signalled = true;
  private boolean stopped;
  private boolean started;

  private int turn;

  ShardLoop(
      ShardRelay relay,
      RelayFeed feed,
      int budget,
      Duration retry,
      RelayPhases phases,
      ExecutorService prefetcher,
      Outcome outcome,
      String name) {
    this.relay = relay;
    this.feed = feed;
    this.budget = budget;
    this.retry = retry;
    this.phases = phases;
    this.prefetcher = prefetcher;
    this.outcome = outcome;
    this.thread = new Thread(this::run, name);
    this.thread.setDaemon(true);
  }

  int shard() {
    return relay.shard();
  }

  /** Starts the loop's thread, once. */
  synchronized void start() {
    if (!started) {
      started = true;
      thread.start();
    }
  }

  /**
   * Tells the loop that {@code room} has confirmations up to {@code head} committed; 0 when the
   * cursor is not known (the loop reads the room's head). Returns at once.
   */
  synchronized void offer(String room, long head) {
    if (head <= 0) {
      unknown.add(room);
      signalled = true;
      notifyAll();
    } else if (head > heads.getOrDefault(room, 0L)) {
      heads.put(room, head);
      signalled = true;
      notifyAll();
    }
  }

  /** Tells the loop the heads of all of its rooms, as read from SQL. Returns at once. */
  synchronized void offerAll(Map<String, Long> read) {
    boolean moved = false;
    for (Map.Entry<String, Long> e : read.entrySet()) {
      if (e.getValue() > heads.getOrDefault(e.getKey(), 0L)) {
        heads.put(e.getKey(), e.getValue());
        moved = true;
      }
    }
    if (moved) {
      signalled = true;
      notifyAll();
    }
  }

  /**
   * Tells the loop to stop; it closes the producer once its transaction in flight ended. Returns at
   * once.
   */
  synchronized void stop() {
    stopped = true;
    notifyAll();
  }

  /** Waits up to {@code most} for the loop to end. */
  void join(Duration most) {
    synchronized (this) {
      if (!started) {
        relay.close();
        return;
      }
    }
    try {
      thread.join(Math.max(1, most.toMillis()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void run() {
    try {
      loop();
    } finally {
      relay.close();
    }
  }

  private void loop() {
    ShardRelay.Batch next = null;
    while (awaitWork()) {
      try {
        if (!relay.open()) {
          next = null;
          long started = System.nanoTime();
          relay.openShard();
          phases.ran(RelayPhases.Phase.OPEN, started);
          log.info("kafka relay: runs shard {}", relay.shard());
        }
        next = step(next);
      } catch (KafkaException e) {
        next = null;
        relay.close();
        if (e instanceof ProducerFencedException || e instanceof InvalidProducerEpochException) {
          outcome.fenced(e);
        } else {
          outcome.failed(e);
        }
        pauseThenRetry();
      } catch (RuntimeException e) {
        next = null;
        outcome.broken(e);
        pauseThenRetry();
      }
    }
  }

  /**
   * One transaction, when a room is behind: {@code ready} (read while the last transaction
   * committed) or a fresh read; the batch read for the next one while this one committed, or null.
   */
  private ShardRelay.Batch step(ShardRelay.Batch ready) {
    Map<String, Long> known = knownHeads();
    Map<String, Long> positions = relay.positions();
    for (Map.Entry<String, Long> e : known.entrySet()) {
      outcome.saw(e.getKey(), e.getValue(), positions.getOrDefault(e.getKey(), 0L));
    }
    ShardRelay.Batch batch;
    if (ready == null) {
      batch = relay.read(feed, known, positions, budget, turn++, phases);
    } else {
      // read while the last transaction committed: add what the rooms got since that read began
      int left = budget - ready.records().size();
      batch =
          left < 1 || !behind(known, ready.after(positions))
              ? ready
              : ready.plus(relay.read(feed, known, ready.after(positions), left, turn++, phases));
    }
    if (!batch.empty()) {
      long started = System.nanoTime();
      relay.begin(batch);
      phases.ran(RelayPhases.Phase.SEND, started);
      Future<ShardRelay.Batch> prefetch = null;
      Map<String, Long> now = heads();
      Map<String, Long> from = batch.after(positions);
      if (batch.more() || behind(now, from)) {
        int t = turn++;
        prefetch = prefetcher.submit(() -> relay.read(feed, now, from, budget, t, phases));
      }
      started = System.nanoTime();
      try {
        relay.commit(batch);
      } catch (RuntimeException e) {
        if (prefetch != null) {
          prefetch.cancel(false);
        }
        throw e;
      }
      phases.ran(RelayPhases.Phase.COMMIT, started);
      outcome.succeeded(batch.records().size());
      ready = prefetch == null ? null : await(prefetch);
    } else {
      outcome.succeeded(0);
      ready = null;
    }
    for (Map.Entry<String, Long> e : known.entrySet()) {
      outcome.saw(e.getKey(), e.getValue(), relay.position(e.getKey()));
    }
    boolean behind = false;
    for (Map.Entry<String, Long> e : known.entrySet()) {
      behind |= e.getValue() > relay.position(e.getKey());
    }
    if (behind || (ready != null && !ready.empty())) {
      synchronized (this) {
        signalled = true;
      }
    }
    return ready == null || ready.empty() ? null : ready;
  }

  /** The heads known now, after reading those of the rooms only named so far. */
  private Map<String, Long> knownHeads() {
    List<String> named;
    synchronized (this) {
      named = new ArrayList<>(unknown);
      unknown.clear();
    }
    if (!named.isEmpty()) {
      Map<String, Long> read;
      try {
        read = feed.heads(named);
      } catch (RuntimeException e) {
        synchronized (this) {
          unknown.addAll(named);
        }
        throw e;
      }
      offerAll(read);
    }
    synchronized (this) {
      return new HashMap<>(heads);
    }
  }

  /** Whether a room of {@code heads} is past its position in {@code positions}. */
  private static boolean behind(Map<String, Long> heads, Map<String, Long> positions) {
    for (Map.Entry<String, Long> e : heads.entrySet()) {
      if (e.getValue() > positions.getOrDefault(e.getKey(), 0L)) {
        return true;
      }
    }
    return false;
  }

  /** The heads handed to the loop so far, without reading those of the rooms only named. */
  private synchronized Map<String, Long> heads() {
    return new HashMap<>(heads);
  }

  private static ShardRelay.Batch await(Future<ShardRelay.Batch> f) {
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException(e.getCause());
    }
  }

  /** Waits until there may be work; false once stopped. */
  private synchronized boolean awaitWork() {
    while (!signalled && !stopped) {
      try {
        wait();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    signalled = false;
    return !stopped;
  }

  /** After a failure: waits {@code retry} (or until stopped), then tries again. */
  private synchronized void pauseThenRetry() {
    long deadline = System.nanoTime() + retry.toNanos();
    long left;
    while (!stopped && (left = deadline - System.nanoTime()) > 0) {
      try {
        TimeUnit.NANOSECONDS.timedWait(this, left);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    signalled = true;
  }
}
