package dev.danmakuledger.protocol.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class TraceParentTest {
  static final String SPEC_EXAMPLE = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  @Test
  void readsTheSpecExample() {
    TraceParent t = TraceParent.parse(SPEC_EXAMPLE).orElseThrow();
    assertEquals("4bf92f3577b34da6a3ce929d0e0e4736", t.traceId());
    assertEquals("00f067aa0ba902b7", t.parentId());
    assertTrue(t.sampled());
    assertEquals(SPEC_EXAMPLE, t.header());
  }

  @Test
  void readsTheUnsampledFlagAndAFutureVersionByItsPrefix() {
    assertFalse(
        TraceParent.parse("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00")
            .orElseThrow()
            .sampled());
    TraceParent future =
        TraceParent.parse("cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-comes")
            .orElseThrow();
    assertEquals("4bf92f3577b34da6a3ce929d0e0e4736", future.traceId());
  }

  @ParameterizedTest
  @NullAndEmptySource
  @ValueSource(
      strings = {
        "00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01",
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
        "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
        "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1",
        "00_4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7_01",
        "<script>",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-zz"
      })
  void ignoresMalformedHeaders(String header) {
    assertEquals(Optional.empty(), TraceParent.parse(header));
  }

  @Test
  void ignoresAnOversizedHeaderUnread() {
    String huge = "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-" + "x".repeat(600);
    assertEquals(Optional.empty(), TraceParent.parse(huge));
  }

  @Test
  void randomTracesAreValidAndDistinct() {
    TraceParent a = TraceParent.random();
    TraceParent b = TraceParent.random();
    assertEquals(a, TraceParent.parse(a.header()).orElseThrow());
    assertNotEquals(a.traceId(), b.traceId());
    assertTrue(a.sampled());
  }

  @Test
  void rejectsInvalidIdsWithWhatItWants() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> new TraceParent("abc", "00f067aa0ba902b7", true));
    assertTrue(e.getMessage().contains("got abc"), e.getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () -> new TraceParent("4bf92f3577b34da6a3ce929d0e0e4736", "0000000000000000", true));
  }
}
