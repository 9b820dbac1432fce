package dev.danmakuledger.edge.testing;

import dev.danmakuledger.edge.bloom.BloomSnapshot;
import dev.danmakuledger.edge.store.AppendBatch;
import dev.danmakuledger.edge.store.EdgeStore;
import dev.danmakuledger.edge.store.LogStateRow;
import dev.danmakuledger.edge.store.OutcomeUpdate;
import dev.danmakuledger.edge.store.StoreException;
import dev.danmakuledger.edge.store.StoredCheckpoint;
import dev.danmakuledger.edge.store.StoredRecord;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A store that passes everything to a real one, except that an append can be made to fail (as a
 * full disk or an I/O error would: nothing is written) or to wait until the test releases it, so a
 * test can queue captures behind a transaction that is still committing; and a hook runs before
 * each sync answer is stored.
 */
public final class FaultyStore implements EdgeStore {
  private final EdgeStore real;
  private volatile long failAppendAt = -1;
  private volatile CountDownLatch entered;
  private volatile CountDownLatch release;
  private volatile BeforeAccept beforeAccept = size -> {};
  private final List<Thread> appenders = new CopyOnWriteArrayList<>();

  /** What runs before the answer to a batch ending at {@code size} is stored; may throw. */
  @FunctionalInterface
  public interface BeforeAccept {
    void run(long size) throws StoreException, InterruptedException;
  }

  public FaultyStore(EdgeStore real) {
    this.real = real;
  }

  /** Runs {@code hook} before each batch answer is stored (a failure there stores nothing). */
  public void beforeAcceptBatch(BeforeAccept hook) {
    beforeAccept = hook;
  }

  /** The next append that starts at log size {@code oldSize} fails and writes nothing. */
  public void failAppendAt(long oldSize) {
    failAppendAt = oldSize;
  }

  /** From now on appends wait for {@link #release()}. */
  public void hold() {
    entered = new CountDownLatch(1);
    release = new CountDownLatch(1);
  }

  /** Waits until an append is waiting on {@link #hold()}. */
  public void awaitHeldAppend() throws InterruptedException {
    if (!entered.await(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("no append reached the store within 30 s");
    }
  }

  public void release() {
    release.countDown();
  }

  /** The thread of every append so far, in order. */
  public List<Thread> appenders() {
    return List.copyOf(appenders);
  }

  @Override
  public void append(AppendBatch batch) throws StoreException {
    appenders.add(Thread.currentThread());
    CountDownLatch gate = release;
    if (gate != null) {
      entered.countDown();
      try {
        gate.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new StoreException("interrupted while held", e);
      }
    }
    if (batch.oldSize() == failAppendAt) {
      failAppendAt = -1;
      throw new StoreException(
          "cannot append records ["
              + batch.oldSize()
              + ", "
              + batch.newSize()
              + ") in "
              + file()
              + ": injected I/O error");
    }
    real.append(batch);
  }

  @Override
  public Path file() {
    return real.file();
  }

  @Override
  public long schemaVersion() throws StoreException {
    return real.schemaVersion();
  }

  @Override
  public Optional<String> meta(String name) throws StoreException {
    return real.meta(name);
  }

  @Override
  public void putMeta(String name, String value) throws StoreException {
    real.putMeta(name, value);
  }

  @Override
  public LogStateRow logState() throws StoreException {
    return real.logState();
  }

  @Override
  public void incrementCounters(Map<String, Long> deltas) throws StoreException {
    real.incrementCounters(deltas);
  }

  @Override
  public Map<String, Long> counters() throws StoreException {
    return real.counters();
  }

  @Override
  public Optional<StoredRecord> findByKey(String idempotencyKey) throws StoreException {
    return real.findByKey(idempotencyKey);
  }

  @Override
  public List<StoredRecord> records(long fromIndex, int limit) throws StoreException {
    return real.records(fromIndex, limit);
  }

  @Override
  public void forEachRecord(Predicate<StoredRecord> visitor) throws StoreException {
    real.forEachRecord(visitor);
  }

  @Override
  public List<String> keysFrom(long fromIndex) throws StoreException {
    return real.keysFrom(fromIndex);
  }

  @Override
  public long recordCount() throws StoreException {
    return real.recordCount();
  }

  @Override
  public Map<String, Long> outcomeCounts() throws StoreException {
    return real.outcomeCounts();
  }

  @Override
  public Optional<Long> oldestUnsyncedCapturedAt() throws StoreException {
    return real.oldestUnsyncedCapturedAt();
  }

  @Override
  public void applyOutcomes(List<OutcomeUpdate> updates) throws StoreException {
    real.applyOutcomes(updates);
  }

  @Override
  public void saveReceipt(long size, String note, long receivedAt) throws StoreException {
    real.saveReceipt(size, note, receivedAt);
  }

  @Override
  public void acceptBatch(List<OutcomeUpdate> updates, long size, String receipt, long receivedAt)
      throws StoreException {
    try {
      beforeAccept.run(size);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreException("interrupted before storing the answer ending at " + size, e);
    }
    real.acceptBatch(updates, size, receipt, receivedAt);
  }

  @Override
  public Optional<StoredCheckpoint> latestReceipt() throws StoreException {
    return real.latestReceipt();
  }

  @Override
  public Optional<StoredCheckpoint> latestCheckpoint() throws StoreException {
    return real.latestCheckpoint();
  }

  @Override
  public List<StoredCheckpoint> checkpoints() throws StoreException {
    return real.checkpoints();
  }

  @Override
  public void saveBloom(BloomSnapshot snapshot) throws StoreException {
    real.saveBloom(snapshot);
  }

  @Override
  public Optional<BloomSnapshot> loadBloom() throws StoreException {
    return real.loadBloom();
  }

  @Override
  public long prune(long coveredSize, long keepFrom, long capturedBefore, long now)
      throws StoreException {
    return real.prune(coveredSize, keepFrom, capturedBefore, now);
  }

  @Override
  public long prunedCount() throws StoreException {
    return real.prunedCount();
  }

  @Override
  public void compact() throws StoreException {
    real.compact();
  }

  @Override
  public long sizeOnDiskBytes() throws StoreException {
    return real.sizeOnDiskBytes();
  }

  @Override
  public void close() throws StoreException {
    real.close();
  }
}
