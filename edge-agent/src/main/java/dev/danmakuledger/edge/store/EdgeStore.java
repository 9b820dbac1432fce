package dev.danmakuledger.edge.store;

import dev.danmakuledger.edge.bloom.BloomSnapshot;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The device-log store (docs/architecture.md §3, §6): records in log order with their server
 * outcomes, the committed log size and compact range, signed checkpoints, server receipts, dedupe
 * counters and the Bloom snapshot. A capture batch is written by {@link #append} in one durable
 * transaction, so every acknowledged record is covered by a device signature.
 *
 * <p>The implementation is one SQLite file per data directory ({@code SqliteEdgeStore}); tests
 * substitute their own to inject faults. Implementations are thread-safe.
 */
public interface EdgeStore extends AutoCloseable {
  /**
   * WAL frames after which a commit checkpoints the log into the database file ({@code PRAGMA
   * wal_autocheckpoint}; SQLite's default is 1,000). The commit that crosses it runs the checkpoint
   * before it returns, after its own data is durable. A lone capture writes about 6.6 pages, so at
   * SQLite's default one ack in about 150 paid for a checkpoint (about 2 ms on the benchmark
   * machine), enough to set the p99 of single acks (docs/benchmarks.md, "edge: where a batch's time
   * goes"). At 4,000 it is one in about 600, the WAL index still fits its first hash table (4,096
   * frames) so reads do not slow down as the WAL grows, and the WAL file stays under about 16 MiB.
   */
  int WAL_AUTOCHECKPOINT_FRAMES = 4_000;

  /** The store file inside a data directory. */
  static Path fileIn(Path dataDir) {
    return dataDir.resolve(SqliteEdgeStore.DB_FILE);
  }

  /**
   * Opens (creating if needed, mode 0600) the store and applies pending migrations. Commands on an
   * initialised directory use {@link #openExisting} instead.
   *
   * @param durability {@code FULL} (the default: every commit is fsynced) or {@code NORMAL}
   */
  static EdgeStore open(Path file, Durability durability) throws StoreException {
    return SqliteEdgeStore.open(file, durability);
  }

  /**
   * Opens the store of an initialised data directory, applying pending migrations, but never
   * creates one: a missing, empty or schema-less file there means the log was lost or truncated,
   * and starting a fresh log would silently fork the device.
   *
   * @throws StoreException if the file is missing, empty or has no schema
   */
  static EdgeStore openExisting(Path file, Durability durability) throws StoreException {
    return SqliteEdgeStore.openExisting(file, durability);
  }

  /**
   * Opens an existing store read-only without migrating it, for audits of a directory another
   * process may own.
   */
  static EdgeStore openReadOnly(Path file) throws StoreException {
    return SqliteEdgeStore.openReadOnly(file);
  }

  Path file();

  /** Number of migrations applied; 0 for a file without the schema. */
  long schemaVersion() throws StoreException;

  /** A value from the meta table (device id, creation time, schema version). */
  Optional<String> meta(String name) throws StoreException;

  void putMeta(String name, String value) throws StoreException;

  /** The committed log size and compact range. */
  LogStateRow logState() throws StoreException;

  /**
   * Writes one capture batch in one transaction: records, the checkpoint covering them, the new
   * compact range, counters. Returns after the commit is durable.
   *
   * @throws DuplicateKeyException if a key is already stored; nothing was written
   * @throws StoreException if anything else fails; nothing was written
   */
  void append(AppendBatch batch) throws StoreException;

  /** Adds to counters outside a capture (in their own transaction). */
  void incrementCounters(Map<String, Long> deltas) throws StoreException;

  /** All counters by name. */
  Map<String, Long> counters() throws StoreException;

  /** The record stored under an idempotency key. */
  Optional<StoredRecord> findByKey(String idempotencyKey) throws StoreException;

  /** Up to {@code limit} records with index >= {@code fromIndex}, in index order. */
  List<StoredRecord> records(long fromIndex, int limit) throws StoreException;

  /** Streams records in index order while {@code visitor} returns true. */
  void forEachRecord(Predicate<StoredRecord> visitor) throws StoreException;

  /** The idempotency keys of the records with index >= {@code fromIndex}, in index order. */
  List<String> keysFrom(long fromIndex) throws StoreException;

  /** Number of rows in the records table (independent of the log state). */
  long recordCount() throws StoreException;

  /** Record counts by server outcome; records not yet synced count under "UNSYNCED". */
  Map<String, Long> outcomeCounts() throws StoreException;

  /** The capture time (epoch ms) of the oldest record without a server outcome, if any. */
  Optional<Long> oldestUnsyncedCapturedAt() throws StoreException;

  /** Stores server outcomes for records (sync client), all or none. */
  void applyOutcomes(List<OutcomeUpdate> updates) throws StoreException;

  /** Stores a server receipt (cosigned checkpoint note) for a log size. */
  void saveReceipt(long size, String note, long receivedAt) throws StoreException;

  /**
   * Stores what the server answered to one batch, all or none: its records' outcomes and the
   * receipt for the log size after it (one transaction, so one commit to disk per batch).
   */
  void acceptBatch(List<OutcomeUpdate> updates, long size, String receipt, long receivedAt)
      throws StoreException;

  /** The receipt for the largest size, if any. */
  Optional<StoredCheckpoint> latestReceipt() throws StoreException;

  /** The checkpoint for the largest size, if any. */
  Optional<StoredCheckpoint> latestCheckpoint() throws StoreException;

  /** Every stored checkpoint, by size. */
  List<StoredCheckpoint> checkpoints() throws StoreException;

  /** Replaces the Bloom snapshot (its own transaction). */
  void saveBloom(BloomSnapshot snapshot) throws StoreException;

  /** The Bloom snapshot, if one was saved. */
  Optional<BloomSnapshot> loadBloom() throws StoreException;

  /**
   * Drops the canonical bytes of every record that may be pruned (docs/edge-agent.md "Retention and
   * pruning"): index below {@code coveredSize} (the size of the latest stored receipt) and below
   * {@code keepFrom}, a final server outcome stored, captured at or before {@code capturedBefore},
   * not pruned yet. Index, key, content hash, leaf hash and outcome stay. One transaction.
   *
   * @return the number of records pruned
   */
  long prune(long coveredSize, long keepFrom, long capturedBefore, long now) throws StoreException;

  /** Number of records whose canonical bytes were pruned. */
  long prunedCount() throws StoreException;

  /** Gives the pages freed by pruning back to the file system. */
  void compact() throws StoreException;

  /** Bytes on disk: the store file plus its write-ahead log. */
  long sizeOnDiskBytes() throws StoreException;

  @Override
  void close() throws StoreException;
}
