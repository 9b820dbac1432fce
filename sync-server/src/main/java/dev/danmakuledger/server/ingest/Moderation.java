package dev.danmakuledger.server.ingest;

import dev.danmakuledger.server.storage.MessageStatus;
import java.text.Normalizer;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Moderation of valid records (issue 5): a configurable banned-word list rejects a message, a
 * review rule holds it as PENDING for an operator, everything else is CONFIRMED. Matching is on
 * NFKC-normalised, lower-cased text so full-width or upper-case variants of a banned word match.
 */
final class Moderation {
  /** Reason recorded for banned-word rejections. */
  static final String BANNED_WORD = "banned-word";

  private final List<String> bannedWords;
  private final Pattern reviewRule;

  Moderation(List<String> bannedWords, Pattern reviewRule) {
    this.bannedWords = bannedWords.stream().map(Moderation::fold).toList();
    this.reviewRule = reviewRule;
  }

  /** The decision for one text. */
  record Decision(MessageStatus status, String reason) {}

  Decision judge(String text) {
    String folded = fold(text);
    for (String word : bannedWords) {
      if (folded.contains(word)) {
        return new Decision(MessageStatus.REJECTED, BANNED_WORD);
      }
    }
    if (reviewRule != null && reviewRule.matcher(text).find()) {
      return new Decision(MessageStatus.PENDING, null);
    }
    return new Decision(MessageStatus.CONFIRMED, null);
  }

  private static String fold(String s) {
    return Normalizer.normalize(s, Normalizer.Form.NFKC).toLowerCase(Locale.ROOT);
  }
}
