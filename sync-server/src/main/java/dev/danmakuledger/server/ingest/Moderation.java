package dev.danmakuledger.server.ingest;

import dev.danmakuledger.server.storage.MessageStatus;
import java.text.Normalizer;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Moderation of valid records (docs/sync-server.md, "Moderation"): a configurable banned-word list
 * rejects a message, a review rule holds it as PENDING for an operator, everything else is
 * CONFIRMED. Both match a folded copy of the text, never the raw text, so that look-alike spellings
 * cannot slip past: {@link #fold} applies NFKC (full-width and compatibility forms to their plain
 * form), removes format characters (Unicode category Cf: zero-width and bidi controls, joiners,
 * soft hyphens, tags) and case-folds. The stored text stays exactly as captured.
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

  private static final Decision CONFIRMED = new Decision(MessageStatus.CONFIRMED, null);

  Decision judge(String text) {
    if (bannedWords.isEmpty() && reviewRule == null) {
      return CONFIRMED;
    }
    String folded = fold(text);
    for (String word : bannedWords) {
      if (folded.contains(word)) {
        return new Decision(MessageStatus.REJECTED, BANNED_WORD);
      }
    }
    if (reviewRule != null && reviewRule.matcher(folded).find()) {
      return new Decision(MessageStatus.PENDING, null);
    }
    return CONFIRMED;
  }

  /**
   * The form moderation matches: format characters removed, NFKC, case-folded (upper then lower
   * case, so that e.g. "ß" and "SS" fold alike), and NFKC again because case mapping can leave text
   * unnormalised.
   */
  static String fold(String s) {
    StringBuilder visible = new StringBuilder(s.length());
    s.codePoints()
        .filter(cp -> Character.getType(cp) != Character.FORMAT)
        .forEach(visible::appendCodePoint);
    String n = Normalizer.normalize(visible, Normalizer.Form.NFKC);
    String cased = n.toUpperCase(Locale.ROOT).toLowerCase(Locale.ROOT);
    String again = Normalizer.normalize(cased, Normalizer.Form.NFKC);
    StringBuilder out = new StringBuilder(again.length());
    again
        .codePoints()
        .filter(cp -> Character.getType(cp) != Character.FORMAT)
        .forEach(out::appendCodePoint);
    return out.toString();
  }
}
