package dev.danmakuledger.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.server.LedgerException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class DecimalTest {
  @ParameterizedTest
  @CsvSource({"0,0", "7,7", "10,10", "42,42", "9223372036854775807,9223372036854775807"})
  void canonicalDecimalsParse(String raw, long want) {
    assertEquals(want, Decimal.parse("n", raw));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "+1",
        "-0",
        "-1",
        "01",
        "00",
        " 1",
        "1 ",
        "1e3",
        "0x10",
        "1.0",
        "",
        "\u0665",
        "\u0663",
        "\uff11",
        "9223372036854775808",
        "10000000000000000000",
        "00000000000000000001"
      })
  void everyOtherSpellingIsRefusedNamingTheFieldAndWhatToSend(String raw) {
    LedgerException e = assertThrows(LedgerException.class, () -> Decimal.parse("seq", raw));
    assertEquals(ErrorCode.INVALID_FIELD, e.code());
    assertTrue(e.getMessage().startsWith("seq: got "), e.getMessage());
    assertTrue(e.getMessage().contains("ASCII digits only"), e.getMessage());
  }

  @ParameterizedTest
  @CsvSource({"0,false", "1,true", "1440,true", "1441,false"})
  void aRangeIsCheckedAtItsBounds(String raw, boolean ok) {
    if (ok) {
      assertEquals(Long.parseLong(raw), Decimal.parse("minutes", raw, 1, 1440));
    } else {
      LedgerException e =
          assertThrows(LedgerException.class, () -> Decimal.parse("minutes", raw, 1, 1440));
      assertTrue(e.getMessage().contains("1..1440"), e.getMessage());
    }
  }

  @Test
  void nullIsRefusedLikeAnyOtherNonNumber() {
    assertThrows(LedgerException.class, () -> Decimal.parse("n", null));
  }
}
