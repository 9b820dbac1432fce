package dev.danmakuledger.edge.capture;

import dev.danmakuledger.edge.bloom.BloomConfig;
import dev.danmakuledger.edge.bloom.BloomFilter;
import dev.danmakuledger.edge.bloom.BloomSnapshot;
import dev.danmakuledger.edge.bloom.RotatingBloom;
import dev.danmakuledger.edge.keys.DeviceIdentity;
import dev.danmakuledger.edge.store.AppendBatch;
import dev.danmakuledger.edge.store.DuplicateKeyException;
import dev.danmakuledger.edge.store.EdgeStore;
import dev.danmakuledger.edge.store.LogStateRow;
import dev.danmakuledger.edge.store.NewRecord;
import dev.danmakuledger.edge.store.StoreException;
import dev.danmakuledger.edge.store.StoreFullException;
import dev.danmakuledger.edge.store.StoredCheckpoint;
import dev.danmakuledger.edge.store.StoredRecord;
import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.Checkpoints;
import dev.danmakuledger.merkle.compact.CompactRange;
import dev.danmakuledger.merkle.hash.Rfc6962;
import dev.danmakuledger.protocol.clock.Hlc;
import dev.danmakuledger.protocol.clock.HybridLogicalClock;
import dev.danmakuledger.protocol.record.CanonicalRecord;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The capture path of the edge agent (ARCHITECTURE §2, §3; issue 4 "Capture path").
 *
 * <p>Callers submit requests from any thread; one writer thread drains the queue in batches (group
 * commit) and, per batch: asks the Bloom filter, confirms every "maybe" by an exact lookup, stamps
 * the new records with the hybrid logical clock, appends their leaf hashes to a copy of the compact
 * range, signs a checkpoint for the new size and commits records, checkpoint, compact range and
 * counters in one SQLite transaction. Futures complete only after that commit, so every ack is
 * durable and covered by a device signature. If the transaction fails, the in-memory compact range
 * and Bloom filter stay at the committed state: the copy is dropped and keys enter the filter only
 * after the commit.
 *
 * <p>While a transaction commits, a planner thread already plans the next queued batch on top of it
 * (its in-flight keys count as repeats, its indexes and compact range as committed). That plan is
 * used only once the transaction has committed; if it fails, the plan is dropped and the batch
 * planned again on the committed state. The Bloom filter and log state are still changed only by
 * the writer, after the planner has finished.
 *
 * <p>The Bloom filter forgets keys older than two generations; a repeat of such a key reaches the
 * store's UNIQUE index, which rolls the transaction back, and the batch is redone with an exact
 * lookup for every key. A false positive or a forgotten key never drops or duplicates a message.
 *
 * <p>Dedupe counters are persisted with the next capture transaction and on close, so a crash may
 * lose the counts of repeats since the last new record; the log itself loses nothing acknowledged.
 */
public final class CaptureService implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CaptureService.class);

  /** Most records per transaction. */
  static final int MAX_BATCH = 1024;

  /** Batches with at least this many new records are encoded in parallel. */
  static final int PARALLEL_ENCODE_MIN = 64;

  /** New records between Bloom snapshots (also taken on rotation and on close). */
  static final long SNAPSHOT_EVERY = 50_000;

  static final String C_CHECKS = "bloom_checks";
  static final String C_MAYBES = "bloom_maybes";
  static final String C_DUPLICATES = "duplicates";
  static final String C_BLOOM_HITS = "bloom_hits";
  static final String C_FALSE_POSITIVES = "bloom_false_positives";
  static final String C_BLOOM_MISSES = "bloom_misses";
  static final String C_CONFLICTS = "conflicts";
  static final String C_CAPTURES = "captures";

  /** Queued by {@link #close()}; compared by identity. */
  private static final List<Pending> STOP = Collections.unmodifiableList(new ArrayList<>());

  private final EdgeStore store;
  private final DeviceIdentity identity;
  private final BloomConfig bloomConfig;
  private final long maxStoreBytes;
  private final Clock clock;
  private final HybridLogicalClock hlc;

  /** Submissions in arrival order; a bulk submission stays one element so it commits together. */
  private final BlockingQueue<List<Pending>> queue = new LinkedBlockingQueue<>();

  private final AtomicInteger queuedCount = new AtomicInteger();
  private final Object lifecycle = new Object();
  private final Thread writer;

  /** Plans the next queued batch while the writer waits for a commit. */
  private final ExecutorService planner =
      Executors.newSingleThreadExecutor(
          task -> {
            Thread t = new Thread(task, "edge-capture-planner");
            t.setDaemon(true);
            return t;
          });

  private boolean closed;

  // Owned by the writer thread (and by the constructor before it starts).
  private CompactRange range;
  private long size;
  private final RotatingBloom bloom;
  private long sinceSnapshot;
  private final Map<String, Long> counters;
  private final Map<String, Long> unpersisted = new HashMap<>();

  private volatile DedupeStats stats;
  private volatile LogStatus status;

  private CaptureService(
      EdgeStore store,
      DeviceIdentity identity,
      BloomConfig bloomConfig,
      long maxStoreBytes,
      Clock clock)
      throws StoreException {
    this.store = store;
    this.identity = identity;
    this.bloomConfig = bloomConfig;
    this.maxStoreBytes = maxStoreBytes;
    this.clock = clock;
    this.hlc = new HybridLogicalClock(clock);
    String storedDevice = store.meta("device_id").orElse(null);
    if (storedDevice == null) {
      store.putMeta("device_id", identity.deviceId());
    } else if (!storedDevice.equals(identity.deviceId())) {
      throw new StoreException(
          "store "
              + store.file()
              + " belongs to device "
              + storedDevice
              + ", want "
              + identity.deviceId());
    }
    loadCommittedState();
    if (size > 0) {
      StoredRecord newest = store.records(size - 1, 1).get(0);
      if (newest.pruned()) {
        throw new StoreException(
            "store "
                + store.file()
                + ": the newest record "
                + newest.index()
                + " was pruned, want it kept (its capture clock seeds the device clock)");
      }
      DanmakuRecord last = decode(newest);
      hlc.update(Hlc.unpack(last.hlc()));
    }
    this.bloom = restoreBloom();
    this.counters = new HashMap<>(store.counters());
    publish();
    this.writer = new Thread(this::runWriter, "edge-capture-writer");
    this.writer.setDaemon(true);
  }

  /**
   * Loads the committed log state and starts the writer thread.
   *
   * @param maxStoreBytes captures are refused once the store file and its WAL reach this size
   */
  public static CaptureService start(
      EdgeStore store,
      DeviceIdentity identity,
      BloomConfig bloomConfig,
      long maxStoreBytes,
      Clock clock)
      throws StoreException {
    CaptureService service = new CaptureService(store, identity, bloomConfig, maxStoreBytes, clock);
    service.writer.start();
    return service;
  }

  public String deviceId() {
    return identity.deviceId();
  }

  /**
   * Queues a capture. The future completes with the ack after the record is durable, or with the
   * original ack for a repeat; it fails with {@link IdempotencyConflictException}, {@link
   * StoreFullException} or {@link StoreException}.
   *
   * @throws dev.danmakuledger.protocol.record.InvalidRecordException if a field is invalid or the
   *     key belongs to another device
   * @throws IllegalStateException after {@link #close()}
   */
  public CompletableFuture<CaptureAck> submit(CaptureRequest request) {
    return submitAll(List.of(request)).get(0);
  }

  /**
   * Queues captures that the writer commits in as few transactions as possible (one, up to {@value
   * #MAX_BATCH} requests); futures as for {@link #submit}, in the order of {@code requests}.
   *
   * @throws dev.danmakuledger.protocol.record.InvalidRecordException if any request is invalid;
   *     then none is queued
   * @throws IllegalStateException after {@link #close()}
   */
  public List<CompletableFuture<CaptureAck>> submitAll(List<CaptureRequest> requests) {
    List<Pending> pending = new ArrayList<>(requests.size());
    List<CompletableFuture<CaptureAck>> futures = new ArrayList<>(requests.size());
    for (CaptureRequest request : requests) {
      DanmakuRecord draft = request.draft(identity.deviceId());
      String key = draft.key().toString();
      Pending p =
          new Pending(
              draft, key, BloomFilter.hash(key), draft.contentHash(), new CompletableFuture<>());
      pending.add(p);
      futures.add(p.future);
    }
    if (pending.isEmpty()) {
      return futures;
    }
    synchronized (lifecycle) {
      if (closed) {
        throw new IllegalStateException("capture service is closed");
      }
      queuedCount.addAndGet(pending.size());
      queue.add(pending);
    }
    return futures;
  }

  /**
   * Captures one record and waits for its durable ack.
   *
   * @throws IdempotencyConflictException if the key was used for different content
   * @throws StoreFullException at the store size bound
   */
  public CaptureAck capture(CaptureRequest request)
      throws IdempotencyConflictException, StoreException, InterruptedException {
    return await(submit(request));
  }

  /** Waits for a future returned by {@link #submit}, unwrapping its failure. */
  public static CaptureAck await(CompletableFuture<CaptureAck> future)
      throws IdempotencyConflictException, StoreException, InterruptedException {
    try {
      return future.get();
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IdempotencyConflictException c) {
        throw c;
      }
      if (cause instanceof StoreException s) {
        throw s;
      }
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException("capture failed", cause);
    }
  }

  /** The dedupe counters as of the last processed batch. */
  public DedupeStats stats() {
    return stats;
  }

  /** The committed log as of the last processed batch. */
  public LogStatus logStatus() {
    return status;
  }

  /** Requests still queued. */
  public int queued() {
    return queuedCount.get();
  }

  /**
   * Processes everything already queued, stops the writer, saves the Bloom snapshot and counters.
   * The store stays open (its owner closes it).
   */
  @Override
  public void close() throws StoreException {
    synchronized (lifecycle) {
      if (closed) {
        return;
      }
      closed = true;
      queue.add(STOP);
    }
    boolean interrupted = false;
    while (writer.isAlive()) {
      try {
        writer.join();
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    planner.shutdown();
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    store.saveBloom(bloom.snapshot(size));
    if (!unpersisted.isEmpty()) {
      store.incrementCounters(unpersisted);
      unpersisted.clear();
    }
  }

  private void runWriter() {
    Batch batch = take();
    Round plan = null;
    while (batch != null) {
      Batch following = null;
      try {
        Carry carry = process(batch, plan);
        following = carry.next;
        plan = carry.plan;
      } catch (RuntimeException e) {
        LOG.error("capture batch failed", e);
        for (Pending p : batch.requests) {
          p.future.completeExceptionally(e);
        }
        plan = null;
      }
      if (following != null) {
        batch = following;
      } else {
        batch = batch.stop ? null : take();
      }
    }
  }

  /** Requests drained from the queue for one transaction; {@code stop} if the STOP mark was met. */
  private record Batch(List<Pending> requests, boolean stop) {}

  /** The batch to process next, if one was drained, and its plan if one was made ahead. */
  private record Carry(Batch next, Round plan) {
    static final Carry NONE = new Carry(null, null);
  }

  /** Waits for the next batch; null once stopped or interrupted. */
  private Batch take() {
    List<Pending> first;
    try {
      first = queue.take();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
    if (first == STOP) {
      return null;
    }
    return drainAfter(first);
  }

  /**
   * The next batch if one is queued, without waiting: null if none, an empty stopping batch if the
   * STOP mark is next.
   */
  private Batch poll() {
    List<Pending> first = queue.poll();
    if (first == null) {
      return null;
    }
    if (first == STOP) {
      return new Batch(List.of(), true);
    }
    return drainAfter(first);
  }

  private Batch drainAfter(List<Pending> first) {
    List<Pending> batch = new ArrayList<>(Math.max(MAX_BATCH, first.size()));
    batch.addAll(first);
    boolean stop = false;
    for (List<Pending> next = queue.peek();
        next != null && batch.size() + next.size() <= MAX_BATCH;
        next = queue.peek()) {
      queue.poll();
      if (next == STOP) {
        stop = true;
        break;
      }
      batch.addAll(next);
    }
    queuedCount.addAndGet(-batch.size());
    return new Batch(batch, stop);
  }

  /**
   * Commits one batch ({@code plan}, if not null, is its plan on the committed state). While the
   * transaction runs, the next queued batch is planned on top of this one on the planner thread;
   * that plan is used only if this transaction commits, and is dropped otherwise.
   */
  private Carry process(Batch batch, Round plan) {
    if (batch.requests.isEmpty()) {
      return Carry.NONE;
    }
    boolean exactForAll = false;
    Round round = plan != null ? plan : plan(batch.requests, false, size, range, Map.of(), true);
    Batch next = null;
    Future<Round> ahead = null;
    try {
      while (true) {
        if (round.newRecords.isEmpty()) {
          merge(unpersisted, round.deltas);
          mergeCounters(round.deltas);
          publish();
          round.complete(null);
          return new Carry(next, null);
        }
        ahead = null;
        if (next == null && !batch.stop) {
          next = poll();
          if (next != null && !next.requests.isEmpty()) {
            Round base = round;
            List<Pending> upcoming = next.requests;
            ahead =
                planner.submit(
                    () -> plan(upcoming, false, base.newSize, base.range, base.planned, false));
          }
        }
        try {
          long onDisk = store.sizeOnDiskBytes();
          if (onDisk >= maxStoreBytes) {
            throw new StoreFullException(onDisk, maxStoreBytes);
          }
          round.deltas.merge(C_CAPTURES, (long) round.newRecords.size(), Long::sum);
          Map<String, Long> deltas = new HashMap<>(unpersisted);
          merge(deltas, round.deltas);
          store.append(
              new AppendBatch(
                  size,
                  round.newRecords,
                  round.range.toBytes(),
                  round.note,
                  clock.millis(),
                  deltas));
        } catch (DuplicateKeyException e) {
          round.deltas.remove(C_CAPTURES);
          awaitQuietly(ahead);
          if (exactForAll) {
            round.complete(e);
            resync();
            return new Carry(next, null);
          }
          LOG.debug(
              "key {} was older than the Bloom window; redoing the batch exactly",
              e.idempotencyKey());
          exactForAll = true;
          round = plan(batch.requests, true, size, range, Map.of(), true);
          continue;
        } catch (StoreException e) {
          round.deltas.remove(C_CAPTURES);
          awaitQuietly(ahead);
          LOG.warn("capture transaction failed: {}", e.getMessage());
          merge(unpersisted, round.deltas);
          mergeCounters(round.deltas);
          resync();
          publish();
          round.complete(e);
          return new Carry(next, null);
        }
        unpersisted.clear();
        mergeCounters(round.deltas);
        range = round.range;
        size = round.newSize;
        Round planned = awaitQuietly(ahead);
        long rotationsBefore = bloom.rotations();
        for (BloomFilter.Hash h : round.newHashes) {
          bloom.put(h);
        }
        sinceSnapshot += round.newRecords.size();
        status = new LogStatus(size, HexFormat.of().formatHex(range.root()), round.note);
        publish();
        round.complete(null);
        if (sinceSnapshot >= SNAPSHOT_EVERY || bloom.rotations() != rotationsBefore) {
          snapshotBloom();
        }
        return new Carry(next, planned);
      }
    } catch (RuntimeException e) {
      awaitQuietly(ahead);
      LOG.error("capture batch failed", e);
      for (Pending p : batch.requests) {
        p.future.completeExceptionally(e);
      }
      return new Carry(next, null);
    }
  }

  /** The plan made ahead, or null if it failed (the batch is then planned again on its turn). */
  private static Round awaitQuietly(Future<Round> ahead) {
    if (ahead == null) {
      return null;
    }
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return ahead.get();
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } catch (ExecutionException e) {
      LOG.debug("planning ahead failed; planning again on the batch's turn", e.getCause());
      return null;
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Plans a batch on top of a log of {@code baseSize} records with compact range {@code baseRange},
   * where {@code inFlight} holds the keys of a transaction not yet committed: classifies, stamps
   * and encodes the requests, and signs the checkpoint covering the new records. Touches no state
   * of the service but the clock and reads of the Bloom filter, so it may run while the writer
   * waits for a commit. {@code parallel} encodes large batches on the common pool.
   */
  private Round plan(
      List<Pending> batch,
      boolean exactForAll,
      long baseSize,
      CompactRange baseRange,
      Map<String, Planned> inFlight,
      boolean parallel) {
    Round round = decide(batch, exactForAll, baseSize, inFlight, parallel);
    if (round.newRecords.isEmpty()) {
      round.newSize = baseSize;
      round.range = baseRange;
      return round;
    }
    CompactRange next = baseRange.copy();
    for (NewRecord r : round.newRecords) {
      next.append(r.leafHash());
    }
    round.newSize = baseSize + round.newRecords.size();
    round.range = next;
    round.note =
        Checkpoints.sign(
            new Checkpoint(identity.origin(), round.newSize, next.root()), identity.signer());
    return round;
  }

  /** Classifies every request of the batch; stamps and encodes the new ones. */
  private Round decide(
      List<Pending> batch,
      boolean exactForAll,
      long baseSize,
      Map<String, Planned> inFlight,
      boolean parallel) {
    Round round = new Round(batch.size());
    Map<String, Planned> planned = round.planned;
    long now = clock.millis();
    long checks = 0;
    long maybes = 0;
    long duplicates = 0;
    long conflicts = 0;
    long hits = 0;
    long misses = 0;
    long falsePositives = 0;
    for (Pending p : batch) {
      Planned inBatch = planned.get(p.key);
      if (inBatch == null) {
        inBatch = inFlight.get(p.key);
      }
      if (inBatch != null) {
        boolean same = inBatch.contentHash.equals(p.contentHash);
        if (same) {
          duplicates++;
        } else {
          conflicts++;
        }
        round.results.add(same ? Result.repeatOf(p, inBatch) : Result.conflictWith(p, inBatch));
        continue;
      }
      boolean maybe = bloom.mightContain(p.bloomHash);
      checks++;
      if (maybe) {
        maybes++;
      }
      if (maybe || exactForAll) {
        Optional<StoredRecord> existing = lookup(p.key);
        if (existing.isPresent()) {
          StoredRecord e = existing.get();
          boolean same = e.contentHash().equals(p.contentHash);
          if (same) {
            duplicates++;
          } else {
            conflicts++;
          }
          if (maybe) {
            hits++;
          } else {
            misses++;
          }
          round.results.add(same ? Result.repeatOfStored(p, e) : Result.conflictWithStored(p, e));
          continue;
        }
        if (maybe) {
          falsePositives++;
        }
      }
      long index = baseSize + round.fresh.size();
      round.fresh.add(p);
      round.clocks.add(hlc.now().pack());
      round.newHashes.add(p.bloomHash);
      Planned plan = new Planned(p.key, index, now, p.contentHash);
      planned.put(p.key, plan);
      round.results.add(Result.fresh(p, plan));
    }
    count(round.deltas, C_CHECKS, checks);
    count(round.deltas, C_MAYBES, maybes);
    count(round.deltas, C_DUPLICATES, duplicates);
    count(round.deltas, C_CONFLICTS, conflicts);
    count(round.deltas, C_BLOOM_HITS, hits);
    count(round.deltas, C_BLOOM_MISSES, misses);
    count(round.deltas, C_FALSE_POSITIVES, falsePositives);
    encode(round, baseSize, now, parallel);
    return round;
  }

  private static void count(Map<String, Long> deltas, String name, long n) {
    if (n != 0) {
      deltas.merge(name, n, Long::sum);
    }
  }

  /**
   * Canonical bytes and leaf hashes of the new records, the first at {@code firstIndex};
   * independent per record once index and clock are assigned, so with {@code parallel} large
   * batches use the common fork-join pool (the writer plans on the critical path and the submitting
   * threads are usually waiting for this very batch; a plan made ahead overlaps a commit instead).
   */
  private static void encode(Round round, long firstIndex, long capturedAt, boolean parallel) {
    int n = round.fresh.size();
    NewRecord[] encoded = new NewRecord[n];
    IntStream indices = IntStream.range(0, n);
    if (parallel && n >= PARALLEL_ENCODE_MIN) {
      indices = indices.parallel();
    }
    indices.forEach(
        i -> {
          Pending p = round.fresh.get(i);
          long index = firstIndex + i;
          byte[] canonical = p.draft.canonicalBytesAt(index, round.clocks.get(i));
          encoded[i] =
              new NewRecord(
                  index, p.key, p.contentHash, canonical, Rfc6962.leafHash(canonical), capturedAt);
        });
    round.newRecords.addAll(Arrays.asList(encoded));
  }

  private Optional<StoredRecord> lookup(String key) {
    try {
      return store.findByKey(key);
    } catch (StoreException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  private void loadCommittedState() throws StoreException {
    LogStateRow row = store.logState();
    CompactRange loaded =
        row.size() == 0 ? CompactRange.empty() : CompactRange.fromBytes(row.compactRange());
    if (loaded.begin() != 0 || loaded.end() != row.size()) {
      throw new StoreException(
          "log_state compact range covers ["
              + loaded.begin()
              + ", "
              + loaded.end()
              + "), want [0, "
              + row.size()
              + "); run `edge-agent verify`");
    }
    range = loaded;
    size = row.size();
    Optional<StoredCheckpoint> cp = store.latestCheckpoint();
    status =
        new LogStatus(
            size,
            HexFormat.of().formatHex(range.root()),
            cp.map(StoredCheckpoint::note).orElse(null));
  }

  private void resync() {
    try {
      loadCommittedState();
    } catch (StoreException | RuntimeException e) {
      LOG.error("cannot reload the committed log state; keeping the last known one", e);
    }
  }

  private RotatingBloom restoreBloom() throws StoreException {
    Optional<BloomSnapshot> snapshot = store.loadBloom();
    RotatingBloom restored = null;
    long replayFrom = Math.max(0, size - bloomConfig.expectedItems());
    if (snapshot.isPresent() && snapshot.get().coveredSize() <= size) {
      try {
        restored = RotatingBloom.restore(bloomConfig, clock, snapshot.get());
        replayFrom = snapshot.get().coveredSize();
      } catch (IllegalArgumentException e) {
        LOG.info("bloom snapshot not usable ({}); rebuilding from the records", e.getMessage());
      }
    }
    if (restored == null) {
      restored = RotatingBloom.create(bloomConfig, clock);
    }
    List<String> keys = store.keysFrom(replayFrom);
    for (String key : keys) {
      restored.put(key);
    }
    LOG.debug("bloom filter ready: replayed {} keys from index {}", keys.size(), replayFrom);
    return restored;
  }

  private void snapshotBloom() {
    try {
      store.saveBloom(bloom.snapshot(size));
      sinceSnapshot = 0;
    } catch (StoreException e) {
      LOG.warn("cannot save the bloom snapshot: {}", e.getMessage());
    }
  }

  private static DanmakuRecord decode(StoredRecord r) {
    return CanonicalRecord.decode(r.canonical());
  }

  private void mergeCounters(Map<String, Long> deltas) {
    merge(counters, deltas);
  }

  private static void merge(Map<String, Long> into, Map<String, Long> deltas) {
    deltas.forEach((k, v) -> into.merge(k, v, Long::sum));
  }

  private void publish() {
    stats =
        DedupeStats.of(
            counters.getOrDefault(C_CHECKS, 0L),
            counters.getOrDefault(C_MAYBES, 0L),
            counters.getOrDefault(C_DUPLICATES, 0L),
            counters.getOrDefault(C_BLOOM_HITS, 0L),
            counters.getOrDefault(C_FALSE_POSITIVES, 0L),
            counters.getOrDefault(C_BLOOM_MISSES, 0L),
            counters.getOrDefault(C_CONFLICTS, 0L),
            counters.getOrDefault(C_CAPTURES, 0L),
            bloomConfig.falsePositiveRate(),
            bloom.memoryBytes(),
            bloom.rotations());
  }

  /** A queued request with everything computed that does not depend on the log state. */
  private record Pending(
      DanmakuRecord draft,
      String key,
      BloomFilter.Hash bloomHash,
      String contentHash,
      CompletableFuture<CaptureAck> future) {}

  private record Planned(String key, long index, long capturedAt, String contentHash) {
    CaptureAck ack(boolean repeat) {
      return new CaptureAck(key, index, capturedAt, repeat, null, null, null);
    }
  }

  /** What one request of a batch turned out to be. */
  private record Result(
      Pending pending, Planned planned, StoredRecord stored, boolean repeat, boolean conflict) {
    static Result fresh(Pending p, Planned plan) {
      return new Result(p, plan, null, false, false);
    }

    static Result repeatOf(Pending p, Planned plan) {
      return new Result(p, plan, null, true, false);
    }

    static Result conflictWith(Pending p, Planned plan) {
      return new Result(p, plan, null, false, true);
    }

    static Result repeatOfStored(Pending p, StoredRecord r) {
      return new Result(p, null, r, true, false);
    }

    static Result conflictWithStored(Pending p, StoredRecord r) {
      return new Result(p, null, r, false, true);
    }

    /** Completes the future; {@code failure} (non-null) fails what depended on the batch. */
    void complete(Exception failure) {
      if (stored != null) {
        CaptureAck original = CaptureAck.of(stored, true);
        if (conflict) {
          pending.future.completeExceptionally(
              new IdempotencyConflictException(
                  original, stored.contentHash(), pending.contentHash));
        } else {
          pending.future.complete(original);
        }
        return;
      }
      if (failure != null) {
        pending.future.completeExceptionally(failure);
      } else if (conflict) {
        pending.future.completeExceptionally(
            new IdempotencyConflictException(
                planned.ack(true), planned.contentHash, pending.contentHash));
      } else {
        pending.future.complete(planned.ack(repeat));
      }
    }
  }

  private static final class Round {
    final List<Result> results;
    final List<Pending> fresh = new ArrayList<>();

    /** Packed hybrid logical clocks of {@link #fresh}, in the same order. */
    final List<Long> clocks = new ArrayList<>();

    final List<NewRecord> newRecords = new ArrayList<>();
    final List<BloomFilter.Hash> newHashes = new ArrayList<>();
    final Map<String, Long> deltas = new LinkedHashMap<>();

    /** The new keys of this round. */
    final Map<String, Planned> planned;

    /** Log size, compact range and signed checkpoint note once this round commits. */
    long newSize;

    CompactRange range;
    String note;

    Round(int n) {
      results = new ArrayList<>(n);
      planned = new HashMap<>(n * 2);
    }

    void complete(Exception failure) {
      for (Result r : results) {
        r.complete(failure);
      }
    }
  }
}
