package dev.danmakuledger.server.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.danmakuledger.server.ServerConfig;
import dev.danmakuledger.server.storage.MessageStatus;
import java.util.List;
import org.junit.jupiter.api.Test;

final class ModerationTest {
  private final Moderation moderation =
      new Moderation(List.of("Spam", "广告"), ServerConfig.DEFAULT_REVIEW_RULE);

  @Test
  void bannedWordsRejectIgnoringCaseAndWidth() {
    assertEquals(
        new Moderation.Decision(MessageStatus.REJECTED, "banned-word"),
        moderation.judge("buy SPAM now"));
    assertEquals(MessageStatus.REJECTED, moderation.judge("ｓｐａｍ full-width").status());
    assertEquals(MessageStatus.REJECTED, moderation.judge("免费广告").status());
  }

  @Test
  void linksWaitForReview() {
    assertEquals(MessageStatus.PENDING, moderation.judge("see https://example.com/x").status());
    assertEquals(MessageStatus.PENDING, moderation.judge("www.example.com").status());
  }

  @Test
  void everythingElseIsConfirmed() {
    assertEquals(
        new Moderation.Decision(MessageStatus.CONFIRMED, null), moderation.judge("前方高能 🎉"));
    assertEquals(
        MessageStatus.CONFIRMED, new Moderation(List.of(), null).judge("http://x.y").status());
  }

  @Test
  void fullwidthAndInvisiblySplitLinksWaitForReview() {
    for (String text :
        List.of(
            "ｈｔｔｐｓ：／／evil.example",
            "http\u200b://evil.example",
            "http\u00ad://evil.example",
            "HTTP\u2060S://EVIL.example",
            "ｗｗｗ．evil．example",
            "h\u200dttp://evil.example")) {
      assertEquals(MessageStatus.PENDING, moderation.judge(text).status(), text);
    }
  }

  @Test
  void bannedWordsMatchThroughFormatCharactersAndCaseFolding() {
    for (String text : List.of("s\u200bpam", "S\u00adP\u200dA\uFEFFM", "ＳＰＡＭ", "广\u200c告")) {
      assertEquals(MessageStatus.REJECTED, moderation.judge(text).status(), text);
    }
    assertEquals(
        MessageStatus.REJECTED, new Moderation(List.of("strasse"), null).judge("STRAßE").status());
  }

  @Test
  void theFoldRemovesEveryFormatCharacter() {
    assertEquals("https://x", Moderation.fold("Ｈ\u200bＴ\u200eＴ\u202eＰ\uFEFFＳ\u2066://x"));
    assertEquals("ab", Moderation.fold("a" + Character.toString(0xE0041) + "b"));
    assertEquals("\uD83D\uDC68\uD83D\uDC69", Moderation.fold("\uD83D\uDC68\u200D\uD83D\uDC69"));
  }

  @Test
  void aBannedWordWinsOverReview() {
    assertEquals(MessageStatus.REJECTED, moderation.judge("spam at https://x.example").status());
  }
}
