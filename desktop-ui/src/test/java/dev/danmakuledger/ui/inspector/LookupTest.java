package dev.danmakuledger.ui.inspector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.protocol.id.MessageId;
import org.junit.jupiter.api.Test;

class LookupTest {
  @Test
  void recognisesAnIdempotencyKey() {
    Lookup l = Lookup.parse("  kiosk-1:u47f24a19:1764480000000:00000000000000000000000000000001 ");
    assertEquals("kiosk-1", assertInstanceOf(Lookup.ByKey.class, l).key().deviceId());
  }

  @Test
  void recognisesAndDecodesAMessageId() {
    long id = new MessageId(1_764_480_000_000L, 3, 17).encode();
    Lookup.ById l = assertInstanceOf(Lookup.ById.class, Lookup.parse(Long.toString(id)));
    assertEquals(new MessageId(1_764_480_000_000L, 3, 17), l.decoded());
  }

  @Test
  void recognisesRoomAndSeqInThreeSpellings() {
    for (String s : new String[] {"live.1#42", "live.1:42", "live.1 42"}) {
      assertEquals(new Lookup.BySeq("live.1", 42), Lookup.parse(s), s);
    }
  }

  @Test
  void explainsWhatIsWrong() {
    assertTrue(message("").startsWith("Type an idempotency key"));
    assertTrue(message("kiosk-1:u1:123:abc").startsWith("That idempotency key is malformed"));
    assertTrue(message("99999999999999999999").startsWith("That message id is larger"));
    assertTrue(message("lobby#0").startsWith("Sequence numbers start at 1"));
    assertTrue(message("ro om!#3").startsWith("Not recognised"));
    assertTrue(message("x".repeat(10_000)).startsWith("Not recognised"));
  }

  private static String message(String input) {
    return assertThrows(IllegalArgumentException.class, () -> Lookup.parse(input)).getMessage();
  }
}
