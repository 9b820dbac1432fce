package dev.danmakuledger.server.events;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** A message's server-sent event, encoded once for every subscriber. */
final class LiveMessageTest {
  @Test
  void theEventCarriesTheCursorAsIdAndTheJsonAsData() throws Exception {
    LiveMessage m = new LiveMessage(42, "{\"text\":\"弹幕\"}");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    m.writeEvent(out);
    assertEquals(
        "id: 42\nevent: message\ndata: {\"text\":\"弹幕\"}\n\n",
        out.toString(StandardCharsets.UTF_8));
  }

  @Test
  void everyLineOfTheDataIsItsOwnDataFieldWhateverItsLineEnd() {
    assertArrayEquals(
        "id: 7\nevent: resume\ndata: a\ndata: b\ndata: c\ndata: \ndata: d\n\n"
            .getBytes(StandardCharsets.UTF_8),
        LiveMessage.encode("resume", "7", "a\nb\r\nc\r\rd"));
  }

  @Test
  void lineEndsAtTheEdgesOfTheDataGiveEmptyDataFields() {
    assertEquals(
        "id: 1\nevent: m\ndata: \ndata: a\ndata: \n\n",
        new String(LiveMessage.encode("m", "1", "\na\r\n"), StandardCharsets.UTF_8));
    assertEquals(
        "id: 1\nevent: m\ndata: \ndata: \n\n",
        new String(LiveMessage.encode("m", "1", "\r"), StandardCharsets.UTF_8));
    assertEquals(
        "id: 1\nevent: m\ndata: \ndata: \ndata: \n\n",
        new String(LiveMessage.encode("m", "1", "\n\r"), StandardCharsets.UTF_8),
        "LF then CR is two line ends, not one");
    assertEquals(
        "id: 1\nevent: m\ndata: 弹幕😀\n\n",
        new String(LiveMessage.encode("m", "1", "弹幕😀"), StandardCharsets.UTF_8));
  }

  @Test
  void aMessageWithoutCursorOrDataIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> new LiveMessage(0, "{}"));
    assertThrows(IllegalArgumentException.class, () -> new LiveMessage(1, ""));
    assertThrows(IllegalArgumentException.class, () -> new LiveMessage(1, null));
  }
}
