package dev.danmakuledger.edge.capture;

import dev.danmakuledger.edge.bloom.BloomConfig;
import dev.danmakuledger.edge.keys.DeviceIdentity;
import dev.danmakuledger.edge.store.EdgeStore;
import dev.danmakuledger.edge.store.StoreException;
import dev.danmakuledger.edge.store.StoreFullException;
import dev.danmakuledger.edge.store.StoredRecord;
import dev.danmakuledger.protocol.clock.Hlc;
import dev.danmakuledger.protocol.clock.HybridLogicalClock;
import dev.danmakuledger.protocol.record.CanonicalRecord;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * The capture path of the edge agent (docs/architecture.md §2, §3, §5 check 1): validate → Bloom
 * "maybe seen?" → exact lookup on "maybe" → HLC stamp → canonical bytes → append to the Merkle log
 * → sign → one durable SQLite transaction → ack.
 *
 * <p>Callers submit requests from any thread into a {@link CaptureQueue}; one writer thread ({@link
 * CaptureWriter}) group-commits them, each batch planned by a {@link BatchPlanner} on the {@link
 * CommittedLog}. A single {@link #capture} that finds nothing queued and no transaction running is
 * committed by its own thread instead. Futures complete only after the commit, so every ack is
 * durable and covered by a device signature. If a transaction fails, the committed log and the
 * Bloom filter ({@link BloomKeeper}) stay as they were. A false positive or a forgotten key never
 * drops or duplicates a message.
 *
 * <p>Dedupe counters are persisted with the next capture transaction and on close, so a crash may
 * lose the counts of repeats since the last new record; the log itself loses nothing acknowledged.
 */
public final class CaptureService implements AutoCloseable {
  /** Most records per transaction. */
  static final int MAX_BATCH = CaptureQueue.MAX_BATCH;

  private final String deviceId;
  private final CaptureQueue queue = new CaptureQueue();

  /** Where the blinds of new records come from (thread-safe; callers submit concurrently). */
  private final SecureRandom blinds = new SecureRandom();

  private final CommittedLog log;
  private final BloomKeeper bloom;
  private final CaptureWriter writer;
  private final Thread writerThread;

  private CaptureService(
      EdgeStore store,
      DeviceIdentity identity,
      BloomConfig bloomConfig,
      long maxStoreBytes,
      Clock clock)
      throws StoreException {
    this.deviceId = identity.deviceId();
    claim(store, identity);
    this.log = CommittedLog.load(store);
    HybridLogicalClock hlc = new HybridLogicalClock(clock);
    seed(hlc, store, log.size());
    this.bloom = BloomKeeper.restore(store, bloomConfig, clock, log.size());
    this.writer =
        new CaptureWriter(
            queue,
            store,
            new BatchPlanner(store, identity, bloom, hlc, clock),
            log,
            bloom,
            DedupeCounts.fromColumns(store.counters()),
            clock,
            maxStoreBytes,
            bloomConfig.falsePositiveRate());
    this.writerThread = new Thread(writer, "edge-capture-writer");
    this.writerThread.setDaemon(true);
  }

  /** Records the device id in a new store, or refuses a store of another device. */
  private static void claim(EdgeStore store, DeviceIdentity identity) throws StoreException {
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
  }

  /** Seeds the capture clock from the newest record, so it never goes back across a restart. */
  private static void seed(HybridLogicalClock hlc, EdgeStore store, long size)
      throws StoreException {
    if (size == 0) {
      return;
    }
    StoredRecord newest = store.records(size - 1, 1).get(0);
    if (newest.pruned()) {
      throw new StoreException(
          "store "
              + store.file()
              + ": the newest record "
              + newest.index()
              + " was pruned, want it kept (its capture clock seeds the device clock)");
    }
    hlc.update(Hlc.unpack(CanonicalRecord.decode(newest.canonical()).hlc()));
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
    service.writerThread.start();
    return service;
  }

  public String deviceId() {
    return deviceId;
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
      Pending p = Pending.of(request, deviceId, blinds);
      pending.add(p);
      futures.add(p.future());
    }
    if (!pending.isEmpty()) {
      queue.add(pending);
    }
    return futures;
  }

  /**
   * Captures one record and waits for its durable ack. When nothing is queued and no transaction
   * runs, the calling thread commits the record itself, so a lone capture's ack waits for its own
   * {@code COMMIT} and nothing else; otherwise it is queued and shares the writer's next group
   * commit like a {@link #submit}.
   *
   * @throws dev.danmakuledger.protocol.record.InvalidRecordException if a field is invalid or the
   *     key belongs to another device
   * @throws IdempotencyConflictException if the key was used for different content
   * @throws StoreFullException at the store size bound
   * @throws IllegalStateException after {@link #close()}
   */
  public CaptureAck capture(CaptureRequest request)
      throws IdempotencyConflictException, StoreException, InterruptedException {
    Pending pending = Pending.of(request, deviceId, blinds);
    if (queue.claimIdle()) {
      try {
        writer.commitAlone(pending);
      } finally {
        queue.release();
      }
    } else {
      queue.add(List.of(pending));
    }
    return await(pending.future());
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
    return writer.stats();
  }

  /** The committed log as of the last processed batch. */
  public LogStatus logStatus() {
    return log.status();
  }

  /** Requests still queued. */
  public int queued() {
    return queue.queued();
  }

  /**
   * Processes everything already queued, stops the writer, saves the Bloom snapshot and counters.
   * The store stays open (its owner closes it).
   */
  @Override
  public void close() throws StoreException {
    if (!queue.close()) {
      return;
    }
    boolean interrupted = false;
    while (writerThread.isAlive()) {
      try {
        writerThread.join();
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    try {
      bloom.save(log.size());
    } finally {
      writer.finish();
    }
  }
}
