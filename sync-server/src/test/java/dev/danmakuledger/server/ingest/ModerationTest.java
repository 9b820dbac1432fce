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
  void aBannedWordWinsOverReview() {
    assertEquals(MessageStatus.REJECTED, moderation.judge("spam at https://x.example").status());
  }
}
