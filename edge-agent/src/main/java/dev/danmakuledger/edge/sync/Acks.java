package dev.danmakuledger.edge.sync;

import dev.danmakuledger.edge.keys.DeviceIdentity;
import dev.danmakuledger.edge.store.EdgeStore;
import dev.danmakuledger.edge.store.OutcomeUpdate;
import dev.danmakuledger.edge.store.StoredCheckpoint;
import dev.danmakuledger.edge.store.StoredRecord;
import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.NoteVerificationException;
import dev.danmakuledger.merkle.checkpoint.NoteVerifier;
import dev.danmakuledger.protocol.wire.AcksResponse;
import dev.danmakuledger.protocol.wire.BatchResponse;
import dev.danmakuledger.protocol.wire.RecordOutcome;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's answers, checked and stored (docs/sync.md, "One run", steps 2 and 4, and
 * "Receipts"): the outcomes of a batch, one per record for the right indices and keys, stored with
 * its receipt in one transaction; outcomes of verified records whose reply was lost, fetched back
 * from {@code /acks}; and the server's latest receipt. Every receipt must verify ({@link
 * ReceiptVerifier}) and sign this device's checkpoint for exactly the size and root expected.
 */
final class Acks {
  private static final Logger LOG = LoggerFactory.getLogger(Acks.class);
  private static final HexFormat HEX = HexFormat.of();

  /** Outcomes fetched per {@code /acks} request. */
  static final int PAGE = 1000;

  private final EdgeStore store;
  private final DeviceIdentity identity;
  private final NoteVerifier deviceVerifier;
  private final ReceiptVerifier receipts;
  private final Uplink uplink;
  private final Clock clock;

  /** Every record below this index has a stored outcome. */
  private long outcomesBelow;

  Acks(
      EdgeStore store,
      DeviceIdentity identity,
      ReceiptVerifier receipts,
      Uplink uplink,
      Clock clock) {
    this.store = store;
    this.identity = identity;
    this.deviceVerifier = NoteVerifier.ofEd25519(identity.origin(), identity.signer().publicKey());
    this.receipts = receipts;
    this.uplink = uplink;
    this.clock = clock;
  }

  /**
   * Fetches and stores the outcomes the device lacks for the verified records {@code [0,
   * verified)}, then the server's receipt for them if it covers more than the stored one.
   */
  void backfill(Resumer.Point at) throws IOException, InterruptedException {
    long verified = at.verified().size();
    long from = firstWithoutOutcome(verified);
    while (from < verified) {
      long to = Math.min(verified, from + PAGE);
      AcksResponse acks = uplink.acks(from, to);
      List<RecordOutcome> got = acks.outcomes();
      if (got.size() != to - from) {
        throw new SyncStoppedException(
            SyncStoppedException.Reason.PROTOCOL,
            "acks ["
                + from
                + ", "
                + to
                + "): got "
                + got.size()
                + " outcomes, want "
                + (to - from));
      }
      List<StoredRecord> local = store.records(from, (int) (to - from));
      store.applyOutcomes(updates(got, local, from));
      LOG.info(
          "stored {} outcomes of records [{}, {}) fetched from the server", got.size(), from, to);
      from = to;
    }
    outcomesBelow = Math.max(outcomesBelow, verified);
    if (at.receipt() != null) {
      long have = store.latestReceipt().map(StoredCheckpoint::size).orElse(-1L);
      if (have < verified) {
        check(at.receipt(), verified, at.verified().root());
        store.saveReceipt(verified, at.receipt(), clock.millis());
      }
    }
  }

  /**
   * Checks the answer to {@code batch} and stores its outcomes and receipt together.
   *
   * @throws SyncStoppedException ({@code PROTOCOL}) if the answer does not fit the batch; then
   *     nothing of it is stored
   */
  void accept(Batch batch, BatchResponse response) throws IOException {
    long oldSize = batch.from();
    long newSize = batch.end();
    if (response.verifiedSize() < newSize) {
      throw new SyncStoppedException(
          SyncStoppedException.Reason.PROTOCOL,
          "batch ["
              + oldSize
              + ", "
              + newSize
              + "): server says verified size "
              + response.verifiedSize()
              + ", want >= "
              + newSize);
    }
    List<RecordOutcome> outcomes = response.outcomes();
    if (outcomes.size() != newSize - oldSize) {
      throw new SyncStoppedException(
          SyncStoppedException.Reason.PROTOCOL,
          "batch ["
              + oldSize
              + ", "
              + newSize
              + "): got "
              + outcomes.size()
              + " outcomes, want "
              + (newSize - oldSize));
    }
    if (response.receipt() == null) {
      throw new SyncStoppedException(
          SyncStoppedException.Reason.PROTOCOL,
          "batch [" + oldSize + ", " + newSize + "): got no receipt, want a cosigned checkpoint");
    }
    check(response.receipt(), newSize, batch.prefix().root());
    store.acceptBatch(
        updates(outcomes, batch.records(), oldSize), newSize, response.receipt(), clock.millis());
    outcomesBelow = Math.max(outcomesBelow, newSize);
    LOG.debug("batch [{}, {}) accepted", oldSize, newSize);
  }

  private long firstWithoutOutcome(long limit) throws IOException {
    long at = outcomesBelow;
    while (at < limit) {
      List<StoredRecord> rows = store.records(at, (int) Math.min(PAGE, limit - at));
      if (rows.isEmpty()) {
        return limit;
      }
      for (StoredRecord r : rows) {
        if (r.outcome() == null) {
          return r.index();
        }
        at = r.index() + 1;
      }
    }
    return limit;
  }

  private List<OutcomeUpdate> updates(
      List<RecordOutcome> outcomes, List<StoredRecord> local, long from)
      throws SyncStoppedException {
    long now = clock.millis();
    List<OutcomeUpdate> out = new ArrayList<>(outcomes.size());
    for (int i = 0; i < outcomes.size(); i++) {
      RecordOutcome o = outcomes.get(i);
      StoredRecord r = local.get(i);
      if (o.index() != from + i
          || r.index() != from + i
          || (o.idempotencyKey() != null && !o.idempotencyKey().equals(r.idempotencyKey()))) {
        throw new SyncStoppedException(
            SyncStoppedException.Reason.PROTOCOL,
            "outcome "
                + i
                + " from index "
                + from
                + ": got index "
                + o.index()
                + " key "
                + o.idempotencyKey()
                + ", want index "
                + (from + i)
                + " key "
                + r.idempotencyKey());
      }
      out.add(
          new OutcomeUpdate(
              o.index(), o.outcome().name(), o.seq(), o.messageId(), o.reason(), now));
    }
    return out;
  }

  /** The receipt must carry the server's signature over this device's checkpoint. */
  private void check(String receipt, long size, byte[] root) throws SyncStoppedException {
    try {
      Checkpoint cp = receipts.verify(receipt, identity.origin(), deviceVerifier);
      if (cp.size() != size || !Arrays.equals(cp.root(), root)) {
        throw new SyncStoppedException(
            SyncStoppedException.Reason.PROTOCOL,
            "receipt: got size "
                + cp.size()
                + " root "
                + HEX.formatHex(cp.root())
                + ", want size "
                + size
                + " root "
                + HEX.formatHex(root));
      }
    } catch (NoteVerificationException e) {
      throw new SyncStoppedException(
          SyncStoppedException.Reason.PROTOCOL,
          "receipt for size " + size + " does not verify: " + e.getMessage(),
          e);
    }
  }
}
