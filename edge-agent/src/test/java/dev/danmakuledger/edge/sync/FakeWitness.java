package dev.danmakuledger.edge.sync;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.Checkpoints;
import dev.danmakuledger.merkle.checkpoint.CosignatureSigner;
import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import dev.danmakuledger.merkle.checkpoint.NoteVerificationException;
import dev.danmakuledger.merkle.checkpoint.NoteVerifier;
import dev.danmakuledger.merkle.checkpoint.SignedNote;
import dev.danmakuledger.merkle.compact.CompactRange;
import dev.danmakuledger.merkle.hash.Rfc6962;
import dev.danmakuledger.protocol.DeviceLog;
import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.protocol.error.Problem;
import dev.danmakuledger.protocol.record.CanonicalRecord;
import dev.danmakuledger.protocol.wire.AcksResponse;
import dev.danmakuledger.protocol.wire.BatchRequest;
import dev.danmakuledger.protocol.wire.BatchResponse;
import dev.danmakuledger.protocol.wire.Json;
import dev.danmakuledger.protocol.wire.LogState;
import dev.danmakuledger.protocol.wire.Outcome;
import dev.danmakuledger.protocol.wire.RecordOutcome;
import dev.danmakuledger.protocol.wire.WireRecord;
import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Function;
import okhttp3.mockwebserver.Dispatcher;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.RecordedRequest;
import okhttp3.mockwebserver.SocketPolicy;

/**
 * A MockWebServer dispatcher that plays the sync server's witness role for one device (the batch
 * protocol of docs/architecture.md §4, reduced): it checks {@code oldSize}, the checkpoint
 * signature and the recomputed root, answers CONFIRMED with seq = index + 1 and a cosigned receipt,
 * replays stored outcomes for a resend, and serves {@code /log} and {@code /acks}. Faults queued
 * with {@link #fault} replace the next answers.
 */
final class FakeWitness extends Dispatcher {
  final NoteSigner serverSigner =
      NoteSigner.generate("test-server", new SecureRandom(new byte[] {7}));
  private final ObjectMapper json = Json.mapper();
  private final String deviceId;
  private final NoteVerifier device;
  private final Deque<Function<RecordedRequest, MockResponse>> faults = new ArrayDeque<>();
  private CompactRange range = CompactRange.empty();
  private final List<byte[]> leaves = new ArrayList<>();
  private final List<RecordOutcome> outcomes = new ArrayList<>();
  private String lastCheckpoint;
  private String lastReceipt;
  int maxRecords = Integer.MAX_VALUE;
  LogState.Status status = LogState.Status.VERIFIED;
  NoteSigner receiptSigner = serverSigner;

  /** When set, receipts carry only this cosignature/v1 line, as a cosigning server's do. */
  CosignatureSigner cosigner;

  final List<BatchRequest> batches = new ArrayList<>();

  /**
   * The {@code Danmaku-Receipt-Cosigner} header of every batch request ("-" where it had none), in
   * the order they arrived.
   */
  final List<String> receiptCosigners = java.util.Collections.synchronizedList(new ArrayList<>());

  /** The path of every request, in the order they arrived. */
  final List<String> requests = java.util.Collections.synchronizedList(new ArrayList<>());

  /**
   * Log indices the witness verifies but can never accept (e.g. moderated text): each gets a
   * per-record REJECTED outcome with a reason while the rest of its batch is accepted.
   */
  final java.util.Set<Long> rejected = new java.util.HashSet<>();

  /** Overrides the log state answered by the next {@code /log} (stale or forged views). */
  LogState logOverride;

  /**
   * The batch window announced on every {@code /log} and {@code /batches} answer, or 0 to announce
   * none (a server before batches in flight). With a window, a batch that starts after the verified
   * size waits for its predecessor (as a server chains it): it goes on once the log reaches its
   * start, or is answered 409 size-mismatch once the batch ending at its start was refused.
   */
  int window;

  /** One-shot faults by a batch's {@code oldSize}, for the first batch sent from there. */
  final java.util.Map<Long, Function<RecordedRequest, MockResponse>> batchFaults =
      new java.util.HashMap<>();

  /** How long the reply to a batch waits, by {@code oldSize}, so replies arrive out of order. */
  final java.util.Map<Long, Long> replyDelayMillis = new java.util.HashMap<>();

  /** Ends of batches refused in the current window, which their followers learn. */
  private final java.util.Set<Long> refusedEnds = new java.util.HashSet<>();

  /** Batch requests waiting for their predecessor. */
  private int waiting;

  FakeWitness(String deviceId, NoteVerifier device) {
    this.deviceId = deviceId;
    this.device = device;
  }

  private String receipt(String checkpoint) {
    return cosigner == null
        ? SignedNote.addSignature(checkpoint, receiptSigner)
        : cosigner.cosign(checkpoint, 1_700_000_000L);
  }

  NoteVerifier serverVerifier() {
    return NoteVerifier.parse(serverSigner.verifierKey());
  }

  long verifiedSize() {
    return range.end();
  }

  /** The next request gets {@code fault} instead of the normal answer. */
  void fault(Function<RecordedRequest, MockResponse> fault) {
    faults.add(fault);
  }

  static MockResponse problem(ErrorCode code, String detail) {
    return problem(Problem.of(code, detail));
  }

  static MockResponse problem(Problem p) {
    try {
      return new MockResponse()
          .setResponseCode(p.status())
          .setHeader("Content-Type", Problem.MEDIA_TYPE)
          .setBody(Json.mapper().writeValueAsString(p));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** Processes the request normally, then drops the connection before the reply. */
  MockResponse processThenDrop(RecordedRequest r) {
    normal(r);
    return new MockResponse().setSocketPolicy(SocketPolicy.DISCONNECT_AFTER_REQUEST);
  }

  @Override
  public synchronized MockResponse dispatch(RecordedRequest r) {
    requests.add(r.getRequestUrl().encodedPath());
    if (r.getRequestUrl().encodedPath().endsWith("/batches")) {
      String named = r.getHeader(SyncClient.RECEIPT_COSIGNER_HEADER);
      receiptCosigners.add(named == null ? "-" : named);
    }
    try {
      return answer(r);
    } finally {
      notifyAll();
    }
  }

  private MockResponse answer(RecordedRequest r) {
    Function<RecordedRequest, MockResponse> f = faults.poll();
    MockResponse answer;
    if (f != null) {
      answer = f.apply(r);
    } else if (window > 0 && r.getRequestUrl().encodedPath().endsWith("/batches")) {
      answer = windowed(r);
    } else {
      answer = normal(r);
    }
    if (window > 0) {
      answer.setHeader(SyncClient.WINDOW_HEADER, Integer.toString(window));
    }
    return answer;
  }

  /**
   * A batch under a window, chained as the server chains it: one that starts after the verified
   * size waits for its predecessor, and goes on once the log reaches its start, or is answered 409
   * size-mismatch once the batch ending at its start was refused (or after a second, for one that
   * arrived after that refusal); faulted or delayed as set.
   */
  private MockResponse windowed(RecordedRequest r) {
    try {
      BatchRequest b = json.readValue(r.getBody().clone().readByteArray(), BatchRequest.class);
      long from = b.oldSize();
      long end = from + b.records().size();
      long deadline = System.nanoTime() + 1_000_000_000L;
      waiting++;
      try {
        while (from > range.end() && !refusedEnds.contains(from) && System.nanoTime() < deadline) {
          wait(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
        }
      } finally {
        waiting--;
      }
      MockResponse answer;
      if (from > range.end()) {
        answer =
            problem(
                Problem.of(ErrorCode.SIZE_MISMATCH, "the batch before failed")
                    .with("verifiedSize", range.end()));
      } else {
        Function<RecordedRequest, MockResponse> fault = batchFaults.remove(from);
        answer = fault != null ? fault.apply(r) : normal(r);
      }
      if (range.end() < end) {
        refusedEnds.add(end);
      }
      if (waiting == 0) {
        refusedEnds.clear(); // only batches waiting now learn of a refusal
      }
      Long delay = replyDelayMillis.get(from);
      if (delay != null) {
        answer.setHeadersDelay(delay, java.util.concurrent.TimeUnit.MILLISECONDS);
      }
      return answer;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return problem(ErrorCode.INTERNAL, "interrupted");
    } catch (Exception e) {
      return problem(ErrorCode.INTERNAL, e.toString());
    }
  }

  /** The normal answer (for faults that only affect later requests). */
  MockResponse pass(RecordedRequest r) {
    return normal(r);
  }

  private MockResponse normal(RecordedRequest r) {
    String path = r.getRequestUrl().encodedPath();
    try {
      if (path.equals("/v1/devices/" + deviceId + "/log")) {
        LogState s = logOverride != null ? logOverride : state();
        logOverride = null;
        return ok(s);
      }
      if (path.equals("/v1/devices/" + deviceId + "/acks")) {
        int from = Integer.parseInt(r.getRequestUrl().queryParameter("from"));
        int to = Integer.parseInt(r.getRequestUrl().queryParameter("to"));
        return ok(new AcksResponse(deviceId, from, to, outcomes.subList(from, to)));
      }
      if (path.equals("/v1/devices/" + deviceId + "/batches")) {
        return batch(json.readValue(r.getBody().readByteArray(), BatchRequest.class));
      }
      return problem(ErrorCode.NOT_FOUND, path);
    } catch (Exception e) {
      return problem(ErrorCode.INTERNAL, e.toString());
    }
  }

  LogState state() {
    return new LogState(
        deviceId,
        range.end(),
        range.end() == 0 ? null : HexFormat.of().formatHex(range.root()),
        lastCheckpoint,
        lastReceipt,
        status);
  }

  private MockResponse batch(BatchRequest b) throws Exception {
    batches.add(b);
    if (status == LogState.Status.QUARANTINED) {
      return problem(ErrorCode.DEVICE_QUARANTINED, "quarantined");
    }
    if (b.records().size() > maxRecords) {
      return problem(ErrorCode.TOO_MANY_RECORDS, "got " + b.records().size());
    }
    Checkpoint cp;
    try {
      cp = Checkpoints.open(b.checkpoint(), DeviceLog.origin(deviceId), device);
    } catch (NoteVerificationException e) {
      return problem(ErrorCode.BAD_SIGNATURE, e.getMessage());
    }
    long newSize = b.oldSize() + b.records().size();
    if (cp.size() != newSize) {
      return problem(ErrorCode.INVALID_FIELD, "checkpoint size");
    }
    if (b.oldSize() > range.end()) {
      return problem(
          Problem.of(ErrorCode.SIZE_MISMATCH, "behind").with("verifiedSize", range.end()));
    }
    if (b.oldSize() < range.end() || b.records().isEmpty()) {
      if (newSize > range.end()) {
        return problem(
            Problem.of(ErrorCode.SIZE_MISMATCH, "resend beyond").with("verifiedSize", range.end()));
      }
      CompactRange at = CompactRange.empty();
      for (int i = 0; i < newSize; i++) {
        at.append(leaves.get(i));
      }
      if (!Arrays.equals(at.root(), cp.root())) {
        status = LogState.Status.QUARANTINED;
        return problem(ErrorCode.FORK_DETECTED, "two roots for size " + newSize);
      }
      return ok(
          new BatchResponse(
              deviceId,
              range.end(),
              HexFormat.of().formatHex(range.root()),
              outcomes.subList((int) b.oldSize(), (int) newSize),
              receipt(b.checkpoint())));
    }
    CompactRange next = range.copy();
    List<byte[]> newLeaves = new ArrayList<>();
    for (WireRecord w : b.records()) {
      byte[] leaf = Rfc6962.leafHash(w.canonicalBytes());
      next.append(leaf);
      newLeaves.add(leaf);
    }
    if (!Arrays.equals(next.root(), cp.root())) {
      return problem(ErrorCode.BAD_PROOF, "root");
    }
    List<RecordOutcome> got = new ArrayList<>();
    for (WireRecord w : b.records()) {
      String key = CanonicalRecord.decode(w.canonicalBytes()).key().toString();
      got.add(
          rejected.contains(w.index())
              ? new RecordOutcome(
                  w.index(), key, Outcome.REJECTED, null, null, null, "text is moderated")
              : new RecordOutcome(
                  w.index(), key, Outcome.CONFIRMED, w.index() + 1, "9" + w.index(), null, null));
    }
    range = next;
    leaves.addAll(newLeaves);
    outcomes.addAll(got);
    lastCheckpoint = b.checkpoint();
    lastReceipt = receipt(b.checkpoint());
    return ok(
        new BatchResponse(
            deviceId, range.end(), HexFormat.of().formatHex(range.root()), got, lastReceipt));
  }

  private MockResponse ok(Object body) throws Exception {
    return new MockResponse()
        .setResponseCode(200)
        .setHeader("Content-Type", "application/json")
        .setBody(json.writeValueAsString(body));
  }
}
