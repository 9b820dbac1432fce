package dev.danmakuledger.edge.verify;

import dev.danmakuledger.edge.store.EdgeStore;
import dev.danmakuledger.edge.store.LogStateRow;
import dev.danmakuledger.edge.store.StoreException;
import dev.danmakuledger.edge.store.StoredCheckpoint;
import dev.danmakuledger.edge.store.StoredRecord;
import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.Checkpoints;
import dev.danmakuledger.merkle.checkpoint.NoteVerificationException;
import dev.danmakuledger.merkle.checkpoint.NoteVerifier;
import dev.danmakuledger.merkle.compact.CompactRange;
import dev.danmakuledger.merkle.hash.Rfc6962;
import dev.danmakuledger.protocol.DeviceLog;
import dev.danmakuledger.protocol.record.CanonicalRecord;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.TreeMap;

/**
 * Audits a store the way a witness would (docs/architecture.md §3): every record's canonical bytes
 * must decode to a valid record of this device carrying its own index, the stored leaf hash must be
 * the RFC 6962 hash of those bytes, capture clocks must increase with the index, every checkpoint
 * must carry a valid device signature and the root recomputed from the leaves at its size, the last
 * checkpoint must cover the whole log, and the persisted compact range must match the
 * recomputation. A record pruned by retention (docs/edge-agent.md "Retention and pruning") has no
 * bytes left to decode: its stored leaf hash enters the root recomputation, so the checkpoint
 * signatures still vouch for it, and it must lie below the latest stored server receipt. The audit
 * stops at the first problem and names it.
 */
public final class LogVerifier {
  private static final HexFormat HEX = HexFormat.of();

  private final String deviceId;
  private final NoteVerifier verifier;

  /** An auditor for the log of {@code deviceId} signed by {@code verifier}'s key. */
  public LogVerifier(String deviceId, NoteVerifier verifier) {
    if (!verifier.name().equals(DeviceLog.origin(deviceId))) {
      throw new IllegalArgumentException(
          "verifier name: got " + verifier.name() + ", want " + DeviceLog.origin(deviceId));
    }
    this.deviceId = deviceId;
    this.verifier = verifier;
  }

  /** Audits {@code store}; never throws for what it finds, only reports it. */
  public VerifyReport verify(EdgeStore store) {
    Scan scan = new Scan();
    try {
      for (StoredCheckpoint cp : store.checkpoints()) {
        scan.checkpoints.put(cp.size(), cp);
      }
      scan.coveredSize = store.latestReceipt().map(StoredCheckpoint::size).orElse(0L);
      store.forEachRecord(scan::visit);
      if (scan.problem != null) {
        return VerifyReport.failed(scan.next, scan.verified, scan.badIndex, scan.problem);
      }
      long n = scan.next;
      if (!scan.checkpoints.isEmpty() && scan.checkpoints.lastKey() > n) {
        long size = scan.checkpoints.lastKey();
        return VerifyReport.failed(
            n,
            scan.verified,
            n,
            "checkpoint signed for size "
                + size
                + " but only "
                + n
                + " records are stored: records from index "
                + n
                + " were deleted or the file was truncated");
      }
      if (n > 0 && (scan.checkpoints.isEmpty() || scan.checkpoints.lastKey() != n)) {
        return VerifyReport.failed(
            n,
            scan.verified,
            scan.checkpoints.isEmpty() ? 0L : scan.checkpoints.lastKey(),
            "no signed checkpoint covers the whole log of "
                + n
                + " records; the last one covers "
                + (scan.checkpoints.isEmpty() ? 0 : scan.checkpoints.lastKey()));
      }
      LogStateRow state = store.logState();
      if (state.size() != n) {
        return VerifyReport.failed(
            n,
            scan.verified,
            Math.min(n, state.size()),
            "log_state says size " + state.size() + " but " + n + " records are stored");
      }
      byte[] root = scan.range.root();
      if (n > 0) {
        CompactRange persisted;
        try {
          persisted = CompactRange.fromBytes(state.compactRange());
        } catch (IllegalArgumentException e) {
          return VerifyReport.failed(
              n, scan.verified, null, "persisted compact range is malformed: " + e.getMessage());
        }
        if (persisted.end() != n || !Arrays.equals(persisted.root(), root)) {
          return VerifyReport.failed(
              n,
              scan.verified,
              null,
              "persisted compact range (size "
                  + persisted.end()
                  + ", root "
                  + HEX.formatHex(persisted.end() == 0 ? Rfc6962.emptyRoot() : persisted.root())
                  + ") differs from the recomputed root "
                  + HEX.formatHex(root));
        }
      }
      return VerifyReport.passed(n, scan.verified, HEX.formatHex(root), scan.pruned);
    } catch (StoreException e) {
      return VerifyReport.failed(
          scan.next, scan.verified, scan.next, "store is unreadable: " + e.getMessage());
    }
  }

  private final class Scan {
    final TreeMap<Long, StoredCheckpoint> checkpoints = new TreeMap<>();
    final CompactRange range = CompactRange.empty();
    long next;
    long verified;
    long lastHlc = -1;
    long lastVerifiedSize;
    long coveredSize;
    long pruned;
    Long badIndex;
    String problem;

    boolean visit(StoredRecord r) {
      long i = next;
      if (r.index() != i) {
        return fail(
            i,
            "record "
                + i
                + " is missing (the next stored index is "
                + r.index()
                + "): a row was deleted");
      }
      if (r.pruned()) {
        return visitPruned(r);
      }
      DanmakuRecord decoded;
      try {
        decoded = CanonicalRecord.decode(r.canonical());
      } catch (IllegalArgumentException e) {
        return fail(i, "record " + i + ": canonical bytes do not decode: " + e.getMessage());
      }
      if (decoded.index() != i) {
        return fail(
            i,
            "record "
                + i
                + ": its signed bytes say index "
                + decoded.index()
                + ": rows were reordered or moved");
      }
      if (!decoded.deviceId().equals(deviceId)) {
        return fail(i, "record " + i + ": device " + decoded.deviceId() + ", want " + deviceId);
      }
      if (!decoded.key().toString().equals(r.idempotencyKey())) {
        return fail(
            i,
            "record "
                + i
                + ": key column "
                + r.idempotencyKey()
                + " differs from the record's key "
                + decoded.key());
      }
      if (!decoded.contentHash().equals(r.contentHash())) {
        return fail(
            i,
            "record "
                + i
                + ": content hash column differs from the hash of its signed content: the record"
                + " was edited");
      }
      byte[] leaf = Rfc6962.leafHash(r.canonical());
      if (!Arrays.equals(leaf, r.leafHash())) {
        return fail(
            i,
            "record "
                + i
                + ": leaf hash column "
                + HEX.formatHex(r.leafHash())
                + " is not the hash of its bytes "
                + HEX.formatHex(leaf)
                + ": the record was edited");
      }
      if (decoded.hlc() <= lastHlc) {
        return fail(
            i,
            "record " + i + ": capture clock " + decoded.hlc() + " is not after record " + (i - 1));
      }
      lastHlc = decoded.hlc();
      return append(r, leaf);
    }

    /** A pruned record: only its leaf hash, receipt coverage and outcome can be checked. */
    private boolean visitPruned(StoredRecord r) {
      long i = r.index();
      if (i >= coveredSize) {
        return fail(
            i,
            "record "
                + i
                + " is pruned but the latest stored receipt covers only "
                + coveredSize
                + " records: its bytes were dropped before the server held them");
      }
      if (r.outcome() == null || "PENDING".equals(r.outcome())) {
        return fail(
            i, "record " + i + " is pruned but has outcome " + r.outcome() + ", want a final one");
      }
      if (r.leafHash().length != Rfc6962.HASH_SIZE) {
        return fail(
            i,
            "record "
                + i
                + ": pruned leaf hash has "
                + r.leafHash().length
                + " bytes, want "
                + Rfc6962.HASH_SIZE);
      }
      pruned++;
      return append(r, r.leafHash());
    }

    private boolean append(StoredRecord r, byte[] leaf) {
      long i = r.index();
      if (r.checkpointSize() <= i || !checkpoints.containsKey(r.checkpointSize())) {
        return fail(
            i,
            "record "
                + i
                + ": covering checkpoint size "
                + r.checkpointSize()
                + " is "
                + (r.checkpointSize() <= i ? "too small" : "not stored"));
      }
      range.append(leaf);
      next = i + 1;
      StoredCheckpoint cp = checkpoints.get(next);
      if (cp != null) {
        String err = checkCheckpoint(cp);
        if (err != null) {
          return fail(lastVerifiedSize, err);
        }
        verified++;
        lastVerifiedSize = next;
      }
      return true;
    }

    private String checkCheckpoint(StoredCheckpoint cp) {
      Checkpoint opened;
      try {
        opened = Checkpoints.open(cp.note(), DeviceLog.origin(deviceId), verifier);
      } catch (NoteVerificationException | IllegalArgumentException e) {
        return "checkpoint for size " + cp.size() + " does not verify: " + e.getMessage();
      }
      if (opened.size() != cp.size()) {
        return "checkpoint stored for size " + cp.size() + " is signed for size " + opened.size();
      }
      byte[] root = range.root();
      if (!Arrays.equals(opened.root(), root)) {
        return "checkpoint for size "
            + cp.size()
            + " signs root "
            + HEX.formatHex(opened.root())
            + " but the stored records give "
            + HEX.formatHex(root)
            + ": a record in ["
            + lastVerifiedSize
            + ", "
            + cp.size()
            + ") was changed";
      }
      return null;
    }

    private boolean fail(long index, String what) {
      badIndex = index;
      problem = what;
      return false;
    }
  }
}
