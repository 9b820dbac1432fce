package dev.danmakuledger.edge.sync;

import dev.danmakuledger.edge.store.StoredRecord;
import java.util.List;

/**
 * How many records one batch carries by bytes (docs/sync.md, step 3): the body stays under the
 * server's default 4 MiB limit ({@code --max-body-bytes}) with room for the JSON around the
 * records, so a large backlog batch of long texts is cut before it is sent rather than refused with
 * 413 (which still halves the batch for a server with a lower limit).
 */
final class BatchBody {
  /** Most bytes of the records' canonical encodings, in base64, in one batch. */
  static final long MAX_RECORD_BYTES = 3L * 1024 * 1024;

  private BatchBody() {}

  /** How many of {@code records}, from the first, fit {@link #MAX_RECORD_BYTES}; at least 1. */
  static int fitting(List<StoredRecord> records) {
    long bytes = 0;
    for (int i = 0; i < records.size(); i++) {
      // base64 of the canonical bytes, the index and the JSON punctuation around both
      bytes += 4L * ((records.get(i).canonical().length + 2) / 3) + 40;
      if (bytes > MAX_RECORD_BYTES && i > 0) {
        return i;
      }
    }
    return records.size();
  }
}
