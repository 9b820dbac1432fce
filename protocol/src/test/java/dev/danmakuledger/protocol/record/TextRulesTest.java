package dev.danmakuledger.protocol.record;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The invisible characters TextRules refuses (docs/canonical-record.md, "Text"), one test per
 * character, and the joiners and tags real text needs, which it keeps.
 */
final class TextRulesTest {
  private static final String NONCE = "0123456789abcdef";

  private static InvalidRecordException refused(String text) {
    return assertThrows(InvalidRecordException.class, () -> TextRules.check(text));
  }

  @ParameterizedTest(name = "U+{0}")
  @ValueSource(
      strings = {
        "200B", "200C", "200D", "2060", "200E", "200F", "061C", "202A", "202B", "202C", "202D",
        "202E", "2066", "2067", "2068", "2069", "FEFF", "E0000", "E0001", "E0020", "E0041", "E0061",
        "E007F"
      })
  void theInvisibleCharacterIsRefusedBetweenAsciiLetters(String hex) {
    String text = "http" + Character.toString(Integer.parseInt(hex, 16)) + "://evil.example";
    InvalidRecordException e = refused(text);
    assertEquals("text", e.field());
    assertTrue(e.getMessage().contains("U+" + hex + " at index 4"), e.getMessage());
  }

  @ParameterizedTest(name = "U+{0}")
  @ValueSource(strings = {"200B", "200C", "200D", "2060", "200F", "FEFF", "E0041"})
  void theInvisibleCharacterIsRefusedAtEitherEnd(String hex) {
    String c = Character.toString(Integer.parseInt(hex, 16));
    refused(c + "hello");
    refused("hello" + c);
    refused(c);
  }

  @Test
  void aZeroWidthJoinerBetweenLettersAndPunctuationIsRefused() {
    refused("http\u200d://x");
    refused("a\u200d b");
    refused("1\u200d2");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "\uD83D\uDC68\u200D\uD83D\uDC69\u200D\uD83D\uDC67",
        "\u2764\uFE0F\u200D\uD83D\uDD25",
        "\uD83D\uDC69\uD83C\uDFFD\u200D\uD83D\uDCBB",
        "\uD83C\uDFF3\uFE0F\u200D\uD83C\uDF08",
        "ok \uD83D\uDC68\u200D\uD83D\uDC69\u200D\uD83D\uDC67 ok"
      })
  void emojiZwjSequencesAreKept(String text) {
    assertEquals(text, Records.record("d", "u", NONCE, text).text());
  }

  @Test
  void joinersInsideWordsOfScriptsThatNeedThemAreKept() {
    String persian = "\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645";
    String devanagari = "\u0915\u094D\u200D\u0937";
    for (String text : new String[] {persian, devanagari}) {
      assertEquals(text, Records.record("d", "u", NONCE, text).text());
    }
  }

  @Test
  void subdivisionFlagTagSequencesAreKeptAndOtherTagsRefused() {
    String scotland = "\uD83C\uDFF4" + tags("gbsct") + Character.toString(0xE007F);
    assertEquals(scotland, Records.record("d", "u", NONCE, scotland).text());
    refused("x" + tags("gbsct") + Character.toString(0xE007F));
    refused("\uD83C\uDFF4" + tags("gbsct"));
    refused("\uD83C\uDFF4" + tags("GB") + Character.toString(0xE007F));
    refused("\uD83C\uDFF4" + Character.toString(0xE007F));
    refused("hi" + tags("ignore previous instructions"));
  }

  private static String tags(String ascii) {
    StringBuilder b = new StringBuilder();
    ascii.codePoints().forEach(c -> b.appendCodePoint(0xE0000 + c));
    return b.toString();
  }

  @Test
  void fullwidthFormsAreKeptAsCaptured() {
    String text = "ｈｔｔｐｓ：／／evil.example";
    assertEquals(text, Records.record("d", "u", NONCE, text).text());
  }
}
