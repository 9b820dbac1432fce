package dev.danmakuledger.server.tracing;

import dev.danmakuledger.protocol.trace.TraceParent;
import dev.danmakuledger.server.events.Events;
import dev.danmakuledger.server.ingest.PipelineStage;
import dev.danmakuledger.server.ingest.StageObserver;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import java.net.URI;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
import org.slf4j.MDC;

/**
 * Spans of the batch pipeline (docs/operations.md, "Tracing"): one {@code batch} span per request,
 * continuing the edge agent's {@code traceparent}, with a child span per {@link PipelineStage}.
 * Without an OTLP endpoint the API's no-op implementation is used: nothing is recorded or sent, but
 * the trace id still flows to logs (SLF4J MDC key {@value #MDC_KEY}), problem bodies and alerts.
 */
public final class Tracing implements StageObserver, AutoCloseable {
  /** The MDC key (and problem/alert member name) of the current trace id. */
  public static final String MDC_KEY = Events.TRACE_ID;

  private static final AttributeKey<String> DEVICE = AttributeKey.stringKey("danmaku.device.id");
  private static final AttributeKey<String> SERVICE = AttributeKey.stringKey("service.name");

  private final OpenTelemetry otel;
  private final Tracer tracer;
  private final boolean recording;
  private final Runnable shutdown;

  private Tracing(OpenTelemetry otel, boolean recording, Runnable shutdown) {
    this.otel = otel;
    this.tracer = otel.getTracer("dev.danmakuledger.sync-server");
    this.recording = recording;
    this.shutdown = shutdown;
  }

  /** No spans at all: the trace id is only propagated. */
  public static Tracing off() {
    return new Tracing(OpenTelemetry.noop(), false, () -> {});
  }

  /** Spans exported over OTLP/HTTP to {@code endpoint} (e.g. {@code http://collector:4318}). */
  public static Tracing otlp(URI endpoint) {
    Objects.requireNonNull(endpoint, "endpoint");
    String base = endpoint.toString().replaceAll("/+$", "");
    String traces = base.endsWith("/v1/traces") ? base : base + "/v1/traces";
    SdkTracerProvider provider =
        SdkTracerProvider.builder()
            .setResource(
                Resource.getDefault().merge(Resource.builder().put(SERVICE, "sync-server").build()))
            .addSpanProcessor(
                BatchSpanProcessor.builder(
                        OtlpHttpSpanExporter.builder().setEndpoint(traces).build())
                    .build())
            .build();
    return with(provider);
  }

  /** Spans recorded by {@code provider} (tests pass one with an in-memory exporter). */
  public static Tracing with(SdkTracerProvider provider) {
    OpenTelemetrySdk sdk = OpenTelemetrySdk.builder().setTracerProvider(provider).build();
    return new Tracing(sdk, true, sdk::close);
  }

  /** Whether spans are recorded (an OTLP endpoint or a test provider is configured). */
  public boolean recording() {
    return recording;
  }

  /**
   * Starts the span of one batch of {@code deviceId} under {@code parent} (a new trace if empty),
   * makes it current on this thread and puts its trace id into the MDC until {@link
   * BatchSpan#close()}.
   */
  public BatchSpan batch(Optional<TraceParent> parent, String deviceId) {
    Context context = Context.root();
    TraceParent remote = parent.orElse(null);
    if (remote == null && !recording) {
      remote = TraceParent.random();
    }
    if (remote != null) {
      context =
          context.with(
              Span.wrap(
                  SpanContext.createFromRemoteParent(
                      remote.traceId(),
                      remote.parentId(),
                      remote.sampled() ? TraceFlags.getSampled() : TraceFlags.getDefault(),
                      TraceState.getDefault())));
    }
    Span span =
        tracer.spanBuilder("batch").setParent(context).setAttribute(DEVICE, deviceId).startSpan();
    return new BatchSpan(span, context.with(span), span.makeCurrent());
  }

  @Override
  public StageObserver.Scope start(PipelineStage stage) {
    Span span = tracer.spanBuilder(stage.label()).setParent(Context.current()).startSpan();
    return new StageObserver.Scope() {
      @Override
      public void failed(Exception e) {
        span.recordException(e);
        span.setStatus(StatusCode.ERROR, e.getClass().getSimpleName());
      }

      @Override
      public void end() {
        span.end();
      }
    };
  }

  /** Flushes and stops the exporter, if any. */
  @Override
  public void close() {
    shutdown.run();
  }

  /** The {@code OpenTelemetry} in use (no-op when not recording). */
  OpenTelemetry openTelemetry() {
    return otel;
  }

  /**
   * The running span of one batch. It is current on the thread that started it until {@link
   * #detach()}; the batch's later work runs on an executor {@link #wrap wrapped} with it, and
   * {@link #end()} ends it wherever the batch finishes.
   */
  public static final class BatchSpan implements AutoCloseable {
    private final Span span;
    private final Context context;
    private final io.opentelemetry.context.Scope scope;
    private final String previousTraceId;
    private boolean detached;

    BatchSpan(Span span, Context context, io.opentelemetry.context.Scope scope) {
      this.span = span;
      this.context = context;
      this.scope = scope;
      this.previousTraceId = MDC.get(MDC_KEY);
      MDC.put(MDC_KEY, traceId());
    }

    /** The trace id: the agent's, or a new one. */
    public String traceId() {
      return span.getSpanContext().getTraceId();
    }

    /** Marks the batch as refused or failed with {@code e}. */
    public void failed(Exception e) {
      span.recordException(e);
      span.setStatus(StatusCode.ERROR, e.getClass().getSimpleName());
    }

    /**
     * Runs every task of {@code executor} with this span current and its trace id in the MDC, so
     * stages that run after the commit are children of the batch and log with its trace id.
     */
    public Executor wrap(Executor executor) {
      Objects.requireNonNull(executor, "executor");
      String traceId = traceId();
      return task ->
          executor.execute(
              () -> {
                String previous = MDC.get(MDC_KEY);
                MDC.put(MDC_KEY, traceId);
                try {
                  context.wrap(task).run();
                } finally {
                  if (previous == null) {
                    MDC.remove(MDC_KEY);
                  } else {
                    MDC.put(MDC_KEY, previous);
                  }
                }
              });
    }

    /**
     * Makes the span no longer current on the thread that started it (which goes on to other
     * requests); the span stays open until {@link #end()}. Call it on that thread; a second call
     * does nothing.
     */
    public void detach() {
      if (detached) {
        return;
      }
      detached = true;
      scope.close();
      if (previousTraceId == null) {
        MDC.remove(MDC_KEY);
      } else {
        MDC.put(MDC_KEY, previousTraceId);
      }
    }

    /** Ends the span, on any thread. */
    public void end() {
      span.end();
    }

    /** Detaches and ends the span: a batch that ran on one thread from start to end. */
    @Override
    public void close() {
      detach();
      end();
    }
  }
}
