package dev.danmakuledger.server.http;

import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.protocol.trace.TraceParent;
import dev.danmakuledger.protocol.wire.Outcome;
import dev.danmakuledger.protocol.wire.RecordOutcome;
import dev.danmakuledger.server.LedgerException;
import dev.danmakuledger.server.ingest.BatchIngest;
import dev.danmakuledger.server.ingest.IngestResult;
import dev.danmakuledger.server.ingest.ReceiptSignatures;
import dev.danmakuledger.server.ingest.SignatureFailures;
import dev.danmakuledger.server.ingest.StageTimes;
import dev.danmakuledger.server.metrics.LedgerMetrics;
import dev.danmakuledger.server.tracing.Tracing;
import io.javalin.http.Context;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import org.eclipse.jetty.server.HttpChannel;
import org.eclipse.jetty.server.Request;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /v1/devices/{deviceId}/batches}, asynchronously (docs/architecture.md §5, "Ticks"): a
 * request thread reads, parses and verifies the batch and hands it to the next tick; the reply is
 * written by a request thread once the tick committed it (or the batch it is chained behind
 * finished), so no request thread waits for a commit or a predecessor. Failed authentications are
 * counted through {@link SignatureFailures}; batches in flight are counted so that {@link #drain}
 * can wait for them when the instance stops.
 */
final class BatchRoute {
  private static final Logger log = LoggerFactory.getLogger(BatchRoute.class);

  /** How the API answers: a JSON body, or a problem document. */
  interface Answers {
    void json(Context ctx, int status, Object body);

    void problem(Context ctx, Exception e);
  }

  private final BatchIngest ingest;
  private final SignatureFailures signatureFailures;
  private final Tracing tracing;
  private final LedgerMetrics metrics;
  private final Requests requests;

  /** Request attribute of a batch counted in flight until its exchange completes. */
  private static final String COUNTED = "danmaku.batchInFlight";

  private final Executor replies;
  private final Answers answers;
  private final Timer batchTimer;
  private final Counter batchRecords;

  // guarded by this
  private boolean draining;
  private int inFlight;

  /**
   * @param replies the listener's request threads, on which a reply is written once its tick
   *     committed
   */
  BatchRoute(
      BatchIngest ingest,
      SignatureFailures signatureFailures,
      Tracing tracing,
      LedgerMetrics metrics,
      Requests requests,
      Executor replies,
      Answers answers) {
    this.ingest = ingest;
    this.signatureFailures = signatureFailures;
    this.tracing = tracing;
    this.metrics = metrics;
    this.requests = requests;
    this.replies = replies;
    this.answers = answers;
    this.batchTimer = metrics.batchTimer();
    this.batchRecords =
        Counter.builder("danmaku.batch.records")
            .description("records received in batches")
            .register(metrics.registry());
  }

  void handle(Context ctx) {
    String deviceId = Requests.deviceId(ctx);
    String address = Requests.address(ctx);
    signatureFailures.admit(address);
    enter();
    ctx.attribute(COUNTED, Boolean.TRUE);
    Timer.Sample sample = Timer.start();
    Optional<TraceParent> parent = ctx.attribute(HttpApi.PARENT_ATTRIBUTE);
    Tracing.BatchSpan span = tracing.batch(parent == null ? Optional.empty() : parent, deviceId);
    CompletableFuture<IngestResult> reply;
    try {
      ctx.attribute(HttpApi.TRACE_ATTRIBUTE, span.traceId());
      long parseStart = System.nanoTime();
      Requests.Batch b = requests.batch(ctx);
      ingest.stages().add(StageTimes.Stage.PARSE, System.nanoTime() - parseStart);
      batchRecords.increment(b.canonicals().size());
      reply =
          ingest.submit(
              deviceId,
              b.oldSize(),
              b.canonicals(),
              b.request().checkpoint(),
              b.request().metadata(),
              ingest.receiptSignaturesFor(ctx.header(ReceiptSignatures.HEADER)),
              span.wrap(replies));
    } catch (RuntimeException | Error e) {
      Throwable answer = finish(e, deviceId, address, span, sample);
      if (answer instanceof RuntimeException r) {
        throw r;
      }
      throw e;
    } finally {
      span.detach();
    }
    ctx.future(
        () ->
            reply.handle(
                (r, failed) -> {
                  Throwable why =
                      finish(
                          failed == null ? null : cause(failed), deviceId, address, span, sample);
                  if (why == null) {
                    reply(ctx, deviceId, r, span);
                  } else if (why instanceof Exception e) {
                    answers.problem(ctx, e);
                  } else {
                    throw new CompletionException(why);
                  }
                  return null;
                }));
  }

  /**
   * Ends the count of a batch once its exchange completed, the reply's last byte written (or the
   * connection lost): only then may {@link #drain} let the listener stop. Jetty calls it for every
   * request of the connectors it is added to.
   */
  HttpChannel.Listener completions() {
    return new HttpChannel.Listener() {
      @Override
      public void onComplete(Request request) {
        if (request.getAttribute(COUNTED) != null) {
          leave();
        }
      }
    };
  }

  /**
   * Refuses new batches (503, retry against another instance) and waits up to {@code grace} for the
   * replies of those in flight to be written.
   */
  void drain(Duration grace) {
    long deadline = System.nanoTime() + grace.toNanos();
    synchronized (this) {
      draining = true;
      while (inFlight > 0) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          log.warn("stopping with {} batch(es) still in flight", inFlight);
          return;
        }
        try {
          wait(Math.max(1, left / 1_000_000));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  /** What a future failed with, unwrapped from its completion wrapper. */
  private static Throwable cause(Throwable e) {
    return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
  }

  /**
   * Ends a batch's span and timer, and counts a failed authentication (in the batch's span,
   * whichever thread this runs on, so the alert it raises names the trace).
   *
   * @return what to answer: {@code failed}, or the refusal counting it raised
   */
  private Throwable finish(
      Throwable failed,
      String deviceId,
      String address,
      Tracing.BatchSpan span,
      Timer.Sample sample) {
    Throwable[] answer = {failed};
    try {
      span.wrap(Runnable::run)
          .execute(
              () -> {
                if (failed instanceof LedgerException e) {
                  try {
                    countFailedAuthentication(e, deviceId, address);
                  } catch (RuntimeException refused) {
                    answer[0] = refused;
                  }
                }
                if (answer[0] instanceof Exception e) {
                  span.failed(e);
                  log.debug("batch of {} refused: {} (trace {})", deviceId, e, span.traceId());
                }
              });
    } finally {
      span.end();
      sample.stop(batchTimer);
    }
    return answer[0];
  }

  private void reply(Context ctx, String deviceId, IngestResult r, Tracing.BatchSpan span) {
    log.debug(
        "batch of {}: {} record(s) (trace {})",
        deviceId,
        r.response().outcomes().size(),
        span.traceId());
    if (r.replayed()) {
      ctx.header("Idempotent-Replayed", "true");
    } else {
      Map<Outcome, Long> byOutcome = new EnumMap<>(Outcome.class);
      for (RecordOutcome o : r.response().outcomes()) {
        byOutcome.merge(o.outcome(), 1L, Long::sum);
      }
      byOutcome.forEach(
          (outcome, n) ->
              Counter.builder("danmaku.records")
                  .description("records of accepted batches by outcome")
                  .tag("outcome", outcome.name())
                  .register(metrics.registry())
                  .increment(n));
    }
    long replyStart = System.nanoTime();
    answers.json(ctx, 200, r.response());
    ingest.stages().add(StageTimes.Stage.REPLY, System.nanoTime() - replyStart);
  }

  /** Failed authentications are counted (and may turn into 429); everything else passes. */
  private void countFailedAuthentication(LedgerException e, String deviceId, String address) {
    switch (e.code()) {
      case BAD_SIGNATURE -> signatureFailures.badSignature(deviceId, address);
      case UNAUTHENTICATED -> signatureFailures.unknownDevice(address);
      default -> {}
    }
  }

  private synchronized void enter() {
    if (draining) {
      throw new LedgerException(
          ErrorCode.SQL_UNAVAILABLE, "the server is shutting down; retry against another instance");
    }
    inFlight++;
  }

  private synchronized void leave() {
    inFlight--;
    notifyAll();
  }
}
