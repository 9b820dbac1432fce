package dev.danmakuledger.server.ingest;

import dev.danmakuledger.protocol.wire.BatchResponse;
import java.util.Objects;

/**
 * The reply to a batch.
 *
 * @param response the per-record outcomes and the receipt
 * @param replayed true when the batch had already been verified and the stored outcomes are
 *     returned (sent as {@code Idempotent-Replayed: true})
 */
public record IngestResult(BatchResponse response, boolean replayed) {
  public IngestResult {
    Objects.requireNonNull(response, "response");
  }
}
