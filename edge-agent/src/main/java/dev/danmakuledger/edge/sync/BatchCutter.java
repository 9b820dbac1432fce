package dev.danmakuledger.edge.sync;

import dev.danmakuledger.edge.keys.DeviceIdentity;
import dev.danmakuledger.edge.store.EdgeStore;
import dev.danmakuledger.edge.store.StoredRecord;
import java.io.IOException;
import java.util.List;

/**
 * Cuts the next batch from the local log (docs/sync.md, "One run", step 3): at most the records
 * asked for, fewer when their bytes would pass {@link BatchBody#MAX_RECORD_BYTES}, never a record
 * whose bytes retention dropped. Reads the store; changes nothing.
 */
final class BatchCutter {
  private final EdgeStore store;
  private final DeviceIdentity identity;

  BatchCutter(EdgeStore store, DeviceIdentity identity) {
    this.store = store;
    this.identity = identity;
  }

  /**
   * The batch of up to {@code records} records after {@code verified}.
   *
   * @param records at least 1; the local log must hold that many records after {@code verified}
   * @throws SyncStoppedException ({@code PROTOCOL}) if a record of the batch was pruned
   * @throws IOException if the store fails or holds fewer records
   */
  Batch cut(LogPrefix verified, int records) throws IOException {
    long from = verified.size();
    List<StoredRecord> read = store.records(from, records);
    if (read.size() != records) {
      throw new IOException(
          "store: got " + read.size() + " records from index " + from + ", want " + records);
    }
    List<StoredRecord> sent = read.subList(0, BatchBody.fitting(read));
    for (StoredRecord r : sent) {
      if (r.pruned()) {
        throw new SyncStoppedException(
            SyncStoppedException.Reason.PROTOCOL,
            "record "
                + r.index()
                + " was pruned after a server receipt covered it, but the server now verifies"
                + " only "
                + from
                + " records and asks for it again; its bytes are gone from this device, the"
                + " server's copy must be restored. Nothing was sent");
      }
    }
    return Batch.of(verified, sent, identity);
  }
}
