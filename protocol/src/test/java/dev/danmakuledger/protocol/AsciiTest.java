package dev.danmakuledger.protocol;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

final class AsciiTest {
  @Test
  void digitsAreAsciiOnly() {
    assertTrue(Ascii.allDigits("0123456789"));
    assertTrue(Ascii.allDigits(""));
    assertFalse(Ascii.allDigits("12a"));
    assertFalse(Ascii.allDigits("1\u0663"), "an Arabic-Indic digit is not a decimal digit here");
    assertFalse(Ascii.allDigits("\uff11"), "nor a fullwidth one");
    assertFalse(Ascii.allDigits("-1"));
  }

  @Test
  void hexIsEitherCaseAndLowerHexOnlyLowercase() {
    assertTrue(Ascii.allHex("09afAF"));
    assertFalse(Ascii.allHex("0g"));
    assertFalse(Ascii.allHex("\uff41"), "a fullwidth a");
    assertTrue(Ascii.allLowerHex("09af"));
    assertFalse(Ascii.allLowerHex("09aF"));
    assertFalse(Ascii.allLowerHex("0x1"));
  }
}
