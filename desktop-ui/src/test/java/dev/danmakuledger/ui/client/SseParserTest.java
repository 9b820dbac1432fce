package dev.danmakuledger.ui.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.Test;

class SseParserTest {
  private static List<SseEvent> feed(SseParser p, String... lines) {
    List<SseEvent> out = new ArrayList<>();
    for (String l : lines) {
      p.line(l).ifPresent(out::add);
    }
    return out;
  }

  @Test
  void namedEventWithMultiLineData() {
    List<SseEvent> events =
        feed(new SseParser(1000), "event: ALERT", "id: 7", "data: {\"a\":", "data:1}", "");
    assertEquals(List.of(new SseEvent("ALERT", "{\"a\":\n1}", "7")), events);
  }

  @Test
  void commentsAndUnknownFieldsAreIgnored() {
    List<SseEvent> events =
        feed(new SseParser(1000), ": keep-alive", "retry: 10", "foo: bar", "data: x", "");
    assertEquals(List.of(new SseEvent("message", "x", null)), events);
  }

  @Test
  void blankLineWithoutDataDispatchesNothing() {
    assertTrue(feed(new SseParser(1000), "event: ALERT", "", "").isEmpty());
  }

  @Test
  void onlyOneLeadingSpaceIsStripped() {
    assertEquals("  x", feed(new SseParser(1000), "data:   x", "").get(0).data());
  }

  @Test
  void fieldWithoutColonHasEmptyValue() {
    assertEquals("", feed(new SseParser(1000), "data", "").get(0).data());
  }

  @Test
  void eventNameDoesNotLeakIntoTheNextEvent() {
    List<SseEvent> events = feed(new SseParser(1000), "event: ROOM", "data: 1", "", "data: 2", "");
    assertEquals("ROOM", events.get(0).name());
    assertEquals("message", events.get(1).name());
  }

  @Test
  void oversizedEventIsDroppedAndTheStreamGoesOn() {
    SseParser p = new SseParser(10);
    List<SseEvent> events = feed(p, "data: 0123456789abc", "data: more", "", "data: ok", "");
    assertEquals(List.of(new SseEvent("message", "ok", null)), events);
    assertEquals(1, p.droppedOversized());
  }

  @Test
  void idWithNulIsIgnored() {
    assertEquals("1", feed(new SseParser(100), "id: 1", "id: a\0b", "data: x", "").get(0).id());
  }

  @Test
  void limitMustBePositive() {
    assertThrows(IllegalArgumentException.class, () -> new SseParser(0));
  }

  @Property(seed = "7345")
  void dataSurvivesTheWireFormat(
      @ForAll @Size(max = 5) List<@StringLength(max = 40) String> payloads) {
    SseParser p = new SseParser(10_000);
    List<String> got = new ArrayList<>();
    for (String payload : payloads) {
      String clean = payload.replace('\n', ' ').replace('\r', ' ');
      for (String l : List.of("event: E", "data: " + clean, "")) {
        p.line(l).ifPresent(e -> got.add(e.data()));
      }
    }
    List<String> want = new ArrayList<>();
    payloads.forEach(s -> want.add(s.replace('\n', ' ').replace('\r', ' ')));
    assertEquals(want, got);
  }

  @Property(seed = "9113")
  void arbitraryLinesNeverThrow(@ForAll @Size(max = 30) List<String> lines) {
    SseParser p = new SseParser(64);
    for (String l : lines) {
      p.line(l).ifPresent(e -> assertTrue(e.data().length() <= 64));
    }
  }
}
