package dev.danmakuledger.edge.api;

import dev.danmakuledger.edge.capture.IdempotencyConflictException;
import dev.danmakuledger.edge.store.StoreException;
import dev.danmakuledger.edge.store.StoreFullException;
import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.protocol.error.Problem;
import dev.danmakuledger.protocol.record.InvalidRecordException;

/** Domain errors of the capture path to problem+json, in one place. */
final class ErrorMapping {
  private ErrorMapping() {}

  static Problem toProblem(Throwable error) {
    if (error instanceof ApiException a) {
      return a.problem();
    }
    if (error instanceof IdempotencyConflictException c) {
      return Problem.of(ErrorCode.IDEMPOTENCY_CONFLICT, c.getMessage())
          .with("originalIndex", c.original().index());
    }
    if (error instanceof StoreFullException f) {
      return Problem.of(ErrorCode.STORE_FULL, f.getMessage())
          .with("storeBytes", f.sizeBytes())
          .with("maxStoreBytes", f.maxBytes());
    }
    if (error instanceof InvalidRecordException e) {
      return Problem.of(ErrorCode.INVALID_FIELD, e.getMessage()).with("field", e.field());
    }
    if (error instanceof StoreException s) {
      return Problem.of(ErrorCode.INTERNAL, "the local store failed: " + s.getMessage());
    }
    return Problem.of(ErrorCode.INTERNAL, "unexpected error: " + error);
  }
}
