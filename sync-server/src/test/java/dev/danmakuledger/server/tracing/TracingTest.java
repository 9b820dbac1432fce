package dev.danmakuledger.server.tracing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.protocol.trace.TraceParent;
import dev.danmakuledger.server.ingest.PipelineStage;
import dev.danmakuledger.server.ingest.StageObserver;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class TracingTest {
  final InMemorySpanExporter exporter = InMemorySpanExporter.create();

  Tracing recording() {
    return Tracing.with(
        SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build());
  }

  @Test
  void aBatchContinuesTheAgentsTraceWithOneSpanPerStage() {
    TraceParent agent = TraceParent.random();
    List<SpanData> spans;
    try (Tracing tracing = recording()) {
      try (Tracing.BatchSpan batch = tracing.batch(Optional.of(agent), "dev-1")) {
        assertEquals(agent.traceId(), batch.traceId());
        assertEquals(agent.traceId(), Span.current().getSpanContext().getTraceId());
        for (PipelineStage s : PipelineStage.values()) {
          tracing.start(s).end();
        }
      }
      assertFalse(Span.current().getSpanContext().isValid(), "no span after the batch");
      spans = exporter.getFinishedSpanItems();
    }
    assertEquals(6, spans.size(), spans.toString());
    Map<String, SpanData> byName =
        spans.stream().collect(Collectors.toMap(SpanData::getName, s -> s));
    SpanData batch = byName.get("batch");
    assertEquals(agent.parentId(), batch.getParentSpanId());
    assertEquals("dev-1", batch.getAttributes().asMap().values().iterator().next());
    for (String stage : List.of("verify", "triage", "admit", "commit", "publish")) {
      SpanData s = byName.get(stage);
      assertEquals(agent.traceId(), s.getTraceId(), stage);
      assertEquals(batch.getSpanId(), s.getParentSpanId(), stage);
    }
  }

  @Test
  void aFailedStageIsMarkedAnError() {
    List<SpanData> spans;
    try (Tracing tracing = recording()) {
      try (Tracing.BatchSpan batch = tracing.batch(Optional.empty(), "dev-2")) {
        StageObserver.Scope s = tracing.start(PipelineStage.COMMIT);
        s.failed(new IllegalStateException("boom"));
        s.end();
        batch.failed(new IllegalStateException("boom"));
      }
      spans = exporter.getFinishedSpanItems();
    }
    assertEquals(2, spans.size());
    assertTrue(spans.stream().allMatch(s -> s.getStatus().getStatusCode() == StatusCode.ERROR));
    assertEquals(spans.get(0).getTraceId(), spans.get(1).getTraceId());
  }

  @Test
  void offRecordsNothingButStillNamesATraceId() {
    try (Tracing off = Tracing.off()) {
      try (Tracing.BatchSpan batch = off.batch(Optional.empty(), "dev-3")) {
        assertEquals(32, batch.traceId().length());
        assertTrue(!batch.traceId().equals("0".repeat(32)), batch.traceId());
        assertEquals(batch.traceId(), Span.current().getSpanContext().getTraceId());
        off.start(PipelineStage.ADMIT).end();
      }
      TraceParent agent = TraceParent.random();
      try (Tracing.BatchSpan batch = off.batch(Optional.of(agent), "dev-3")) {
        assertEquals(agent.traceId(), batch.traceId());
      }
      assertEquals(false, off.recording());
    }
    assertEquals(0, exporter.getFinishedSpanItems().size());
  }
}
