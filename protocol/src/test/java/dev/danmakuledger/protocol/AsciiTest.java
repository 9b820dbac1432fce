package dev.danmakuledger.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
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

  @Test
  void idCharsAreLettersDigitsUnderscoreAndHyphen() {
    assertTrue(Ascii.allIdChars("kiosk-7_A"));
    assertFalse(Ascii.allIdChars("kiosk 7"));
    assertFalse(Ascii.allIdChars("a:b"));
    assertFalse(Ascii.allIdChars("é"));
  }

  @Test
  void everyCharacterIsClassedAsTheFormatsDefineIt() {
    for (int i = 0; i <= Character.MAX_VALUE; i++) {
      char c = (char) i;
      String s = "0" + c + "a";
      boolean digit = c >= '0' && c <= '9';
      boolean lower = digit || (c >= 'a' && c <= 'f');
      boolean hex = lower || (c >= 'A' && c <= 'F');
      boolean id =
          digit || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '-';
      String at = "U+" + Integer.toHexString(i);
      assertEquals(digit, Ascii.allDigits(String.valueOf(c)), at);
      assertEquals(lower, Ascii.allLowerHex(s), at);
      assertEquals(hex, Ascii.allHex(s), at);
      assertEquals(id, Ascii.allIdChars(s), at);
    }
  }
}
