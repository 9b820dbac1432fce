package dev.danmakuledger.lua;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.lua.Admission.Status;
import org.junit.jupiter.api.Test;

class ValueTypesTest {
  @Test
  void admitItemPreconditions() {
    new AdmitItem("k", "ab12", 0);
    new AdmitItem("k".repeat(AdmitItem.MAX_KEY_LENGTH), "a".repeat(128), Long.MAX_VALUE);
    assertThrows(IllegalArgumentException.class, () -> new AdmitItem("", "ab", 1));
    assertThrows(
        IllegalArgumentException.class,
        () -> new AdmitItem("k".repeat(AdmitItem.MAX_KEY_LENGTH + 1), "ab", 1));
    assertThrows(IllegalArgumentException.class, () -> new AdmitItem("k", "", 1));
    assertThrows(IllegalArgumentException.class, () -> new AdmitItem("k", "a|b", 1));
    assertThrows(IllegalArgumentException.class, () -> new AdmitItem("k", "a".repeat(129), 1));
    assertThrows(IllegalArgumentException.class, () -> new AdmitItem("k", "ab\n", 1));
    // ASCII letters and digits only, as the script checks them (Lua's %w in the C locale)
    assertThrows(IllegalArgumentException.class, () -> new AdmitItem("k", "caf\u00e9", 1));
    assertThrows(IllegalArgumentException.class, () -> new AdmitItem("k", "ab\u0663", 1));
    assertThrows(IllegalArgumentException.class, () -> new AdmitItem("k", "a b", 1));
    for (int i = 0; i <= Character.MAX_VALUE; i++) {
      char c = (char) i;
      boolean alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
      String hash = "ab" + c;
      if (alnum) {
        new AdmitItem("k", hash, 1);
      } else {
        assertThrows(
            IllegalArgumentException.class,
            () -> new AdmitItem("k", hash, 1),
            "U+" + Integer.toHexString(i));
      }
    }
    assertThrows(IllegalArgumentException.class, () -> new AdmitItem("k", "ab", -1));
    assertThrows(NullPointerException.class, () -> new AdmitItem(null, "ab", 1));
  }

  @Test
  void admissionPreconditions() {
    assertThrows(IllegalArgumentException.class, () -> new Admission(Status.NEW, 0, 1));
    assertThrows(IllegalArgumentException.class, () -> new Admission(Status.NEW, 1, -1));
    assertThrows(NullPointerException.class, () -> new Admission(null, 1, 1));
  }

  @Test
  void replayIsADuplicateCarryingTheItemsOwnCandidateId() {
    AdmitItem item = new AdmitItem("k", "ab", 77);
    assertTrue(new Admission(Status.DUPLICATE, 5, 77).isReplayOf(item));
    assertFalse(new Admission(Status.DUPLICATE, 5, 78).isReplayOf(item));
    assertFalse(new Admission(Status.NEW, 5, 77).isReplayOf(item));
    assertFalse(new Admission(Status.CONFLICT, 5, 77).isReplayOf(item));
  }

  @Test
  void needSeedNamesTheRoom() {
    assertEquals("lobby", new NeedSeedException("lobby").room());
  }
}
