package dev.danmakuledger.ui.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReconnectDelaysTest {
  @Test
  void doublesUpToTheCapAndResets() {
    ReconnectDelays b = new ReconnectDelays(Duration.ofMillis(500), Duration.ofSeconds(3));
    List<Long> got = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      got.add(b.next().toMillis());
    }
    assertEquals(List.of(500L, 1000L, 2000L, 3000L, 3000L, 3000L), got);
    b.reset();
    assertEquals(500, b.next().toMillis());
  }

  @Test
  void rejectsNonsense() {
    assertThrows(
        IllegalArgumentException.class, () -> new ReconnectDelays(Duration.ZERO, Duration.ZERO));
    assertThrows(
        IllegalArgumentException.class,
        () -> new ReconnectDelays(Duration.ofSeconds(2), Duration.ofSeconds(1)));
  }
}
