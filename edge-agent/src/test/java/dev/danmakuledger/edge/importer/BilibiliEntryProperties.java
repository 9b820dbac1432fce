package dev.danmakuledger.edge.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.danmakuledger.edge.capture.CaptureRequest;
import java.util.List;
import java.util.Locale;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.AlphaChars;
import net.jqwik.api.constraints.Chars;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.NumericChars;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.constraints.StringLength;

/** The mapping of one {@code <d p="...">} entry to a capture request. */
class BilibiliEntryProperties {

  @Property(seed = "8729348", tries = 300)
  void validEntriesMapEveryField(
      @ForAll @IntRange(min = 0, max = 36_000_000) int playbackMs,
      @ForAll @IntRange(min = 1, max = 8) int mode,
      @ForAll @IntRange(min = 1, max = 255) int fontSize,
      @ForAll @LongRange(min = 0, max = 0xFFFFFFFFL) long color,
      @ForAll @LongRange(min = 1_000_000_000L, max = 9_999_999_999L) long unixSeconds,
      @ForAll @AlphaChars @NumericChars @StringLength(min = 1, max = 64) String sender,
      @ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long rowId) {
    String p =
        String.format(
            Locale.ROOT,
            "%d.%03d,%d,%d,%d,%d,0,%s,%d",
            playbackMs / 1000,
            playbackMs % 1000,
            mode,
            fontSize,
            color,
            unixSeconds,
            sender,
            rowId);
    CaptureRequest r = BilibiliImporter.toRequest("dev-1", "room", p, "弹幕 text");
    assertEquals((long) playbackMs, r.playbackMs());
    assertEquals(mode, r.mode());
    assertEquals(fontSize, r.fontSize());
    assertEquals((int) (color & 0xFFFFFF), r.color());
    assertEquals(unixSeconds * 1000, r.key().unixMillis());
    assertEquals(sender, r.user());
    assertEquals(BilibiliImporter.nonceFor(Long.toString(rowId)), r.key().nonce());
  }

  @Property(seed = "2839373425", tries = 500)
  void anyAttributeEitherMapsOrIsRefusedWithAReason(
      @ForAll @Size(8)
          List<@StringLength(max = 12) @NumericChars @Chars({'.', '-', 'a', ' '}) String> fields,
      @ForAll @StringLength(max = 40) String text) {
    String p = String.join(",", fields);
    try {
      CaptureRequest r = BilibiliImporter.toRequest("dev-1", "room", p, text);
      assertEquals(r.user(), r.key().userId());
    } catch (IllegalArgumentException e) {
      assertEquals(true, e.getMessage() != null && !e.getMessage().isBlank(), "a reason");
    }
  }
}
