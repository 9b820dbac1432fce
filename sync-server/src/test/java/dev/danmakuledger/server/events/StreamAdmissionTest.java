package dev.danmakuledger.server.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Each subscriber limit admits exactly up to its value, refuses the next, and counts refusals. */
final class StreamAdmissionTest {
  private static StreamAdmission admission(int perInstance, int perRoom, int perAddress) {
    return new StreamAdmission(
        new StreamLimits(10, Duration.ofSeconds(1), 10, perInstance, perRoom, perAddress, 1, 1));
  }

  @Test
  void theInstanceLimitAdmitsItsValueAndRefusesOneMore() {
    StreamAdmission a = admission(3, 3, 3);
    List<StreamTicket> held = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      held.add(a.admit("room-" + i, "10.0.0." + i));
    }
    StreamRefusedException e =
        assertThrows(StreamRefusedException.class, () -> a.admit("room-9", "10.0.0.9"));
    assertEquals(StreamRefusal.INSTANCE, e.refusal());
    assertEquals(3, e.limit());
    assertEquals(StreamAdmission.RETRY_AFTER_SECONDS, e.retryAfterSeconds());
    assertEquals(1, a.refused(StreamRefusal.INSTANCE));
    held.get(0).close();
    a.admit("room-9", "10.0.0.9");
    assertEquals(3, a.admitted());
  }

  @Test
  void theRoomLimitAdmitsItsValueAndRefusesOneMoreOfThatRoomOnly() {
    StreamAdmission a = admission(10, 2, 10);
    StreamTicket first = a.admit("busy", "10.0.0.1");
    a.admit("busy", "10.0.0.2");
    StreamRefusedException e =
        assertThrows(StreamRefusedException.class, () -> a.admit("busy", "10.0.0.3"));
    assertEquals(StreamRefusal.ROOM, e.refusal());
    a.admit("quiet", "10.0.0.3");
    first.close();
    a.admit("busy", "10.0.0.3");
    assertEquals(1, a.refused(StreamRefusal.ROOM));
    assertEquals(0, a.refused(StreamRefusal.INSTANCE));
  }

  @Test
  void theAddressLimitAdmitsItsValueAndRefusesOneMoreFromThatAddressOnly() {
    StreamAdmission a = admission(10, 10, 2);
    a.admit("r1", "10.0.0.1");
    StreamTicket second = a.admit("r2", "10.0.0.1");
    StreamRefusedException e =
        assertThrows(StreamRefusedException.class, () -> a.admit("r3", "10.0.0.1"));
    assertEquals(StreamRefusal.ADDRESS, e.refusal());
    assertEquals(2, e.limit());
    a.admit("r3", "10.0.0.2");
    second.close();
    a.admit("r3", "10.0.0.1");
    assertEquals(1, a.refused(StreamRefusal.ADDRESS));
  }

  @Test
  void aTicketClosedTwiceGivesItsPlaceBackOnceAndIdleKeysAreForgotten() {
    StreamAdmission a = admission(2, 2, 2);
    StreamTicket t = a.admit("r", "10.0.0.1");
    a.admit("r", "10.0.0.1");
    t.close();
    t.close();
    assertEquals(1, a.admitted());
    a.admit("r", "10.0.0.1");
    assertThrows(StreamRefusedException.class, () -> a.admit("r", "10.0.0.1"));
    StreamAdmission b = admission(5, 5, 5);
    b.admit("x", "10.0.0.7").close();
    assertEquals(0, b.addresses());
    assertEquals(0, b.admitted());
  }
}
