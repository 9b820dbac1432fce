package dev.danmakuledger.protocol.key;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.protocol.testing.MutableClock;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class IdempotencyKeyTest {
  private static final String NONCE = "0123456789abcdef";

  @Test
  void parsesCanonicalKey() {
    IdempotencyKey key = IdempotencyKey.parse("kiosk-7:user_42:1732953600000:" + NONCE);
    assertEquals("kiosk-7", key.deviceId());
    assertEquals("user_42", key.userId());
    assertEquals(1732953600000L, key.unixMillis());
    assertEquals(NONCE, key.nonce());
    assertEquals("kiosk-7:user_42:1732953600000:" + NONCE, key.toString());
  }

  @Test
  void keepsNonceCaseAsGiven() {
    String raw = "d:u:1732953600000:ABCDEF0123456789abcdef";
    assertEquals(raw, IdempotencyKey.parse(raw).toString());
  }

  @Test
  void acceptsLongestKey() {
    String id = "a".repeat(64);
    String raw = id + ":" + id + ":9999999999999:" + "f".repeat(64);
    assertEquals(IdempotencyKey.MAX_LENGTH, raw.length());
    assertEquals(raw, IdempotencyKey.parse(raw).toString());
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "empty-string||format",
        "no-colons|abc|format",
        "three-parts|d:u:1732953600000|format",
        "extra-colon|d:u:1732953600000:0123456789abcdef:x|format",
        "trailing-colon|d:u:1732953600000:0123456789abcdef:|format",
        "empty-device|:u:1732953600000:0123456789abcdef|deviceId",
        "empty-user|d::1732953600000:0123456789abcdef|userId",
        "empty-millis|d:u::0123456789abcdef|unixMillis",
        "empty-nonce|d:u:1732953600000:|nonce",
        "space-in-device|d 1:u:1732953600000:0123456789abcdef|deviceId",
        "dot-in-user|d:u.1:1732953600000:0123456789abcdef|userId",
        "cyrillic-a-in-device|dаvice:u:1732953600000:0123456789abcdef|deviceId",
        "fullwidth-digit-in-user|u１:u:1732953600000:0123456789abcdef|deviceId",
        "twelve-digit-millis|d:u:173295360000:0123456789abcdef|unixMillis",
        "fourteen-digit-millis|d:u:17329536000000:0123456789abcdef|unixMillis",
        "leading-zero-millis|d:u:0732953600000:0123456789abcdef|unixMillis",
        "negative-millis|d:u:-732953600000:0123456789abcdef|unixMillis",
        "plus-sign-millis|d:u:+732953600000:0123456789abcdef|unixMillis",
        "arabic-indic-digits-millis|d:u:١٧٣٢٩٥٣٦٠٠٠٠٠:0123456789abcdef|unixMillis",
        "fullwidth-digits-millis|d:u:１７３２９５３６０００００:0123456789abcdef|unixMillis",
        "short-nonce|d:u:1732953600000:0123456789abcde|nonce",
        "non-hex-nonce|d:u:1732953600000:0123456789abcdeg|nonce",
        "fullwidth-hex-nonce|d:u:1732953600000:０123456789abcdef|nonce",
        "space-in-nonce|d:u:1732953600000:0123456789abcde f|nonce",
      })
  void rejectsMalformedKey(String name, String raw, String part) {
    MalformedKeyException e =
        assertThrows(
            MalformedKeyException.class, () -> IdempotencyKey.parse(raw == null ? "" : raw));
    assertEquals(part, e.part(), e.getMessage());
    assertTrue(e.getMessage().contains("got"), e.getMessage());
    assertTrue(e.getMessage().contains("want"), e.getMessage());
    assertFalse(IdempotencyKey.isWellFormed(raw == null ? "" : raw));
  }

  /** Strings close to keys: the parts' characters, colons, and a few that look like them. */
  @Provide
  Arbitrary<String> nearKeys() {
    Arbitrary<String> part =
        Arbitraries.strings()
            .withChars("0123456789abcdefABCDEFxyz_-:. \u0661\uff11\u0430")
            .ofMinLength(0)
            .ofMaxLength(70);
    Arbitrary<String> millis =
        Arbitraries.oneOf(
            Arbitraries.longs().between(0, 99_999_999_999_999L).map(String::valueOf),
            Arbitraries.strings().numeric().ofMinLength(12).ofMaxLength(14));
    Arbitrary<String> nonce =
        Arbitraries.strings().withChars("0123456789abcdefABCDEFg").ofMinLength(14).ofMaxLength(66);
    Arbitrary<String> shaped =
        Combinators.combine(part, part, millis, nonce)
            .as((d, u, m, n) -> d + ":" + u + ":" + m + ":" + n);
    return Arbitraries.oneOf(shaped, part);
  }

  @Property(tries = 20_000)
  void wellFormedIsExactlyWhatParseAcceptsAndItsOwnCanonicalForm(@ForAll("nearKeys") String raw) {
    boolean parsed;
    try {
      assertEquals(raw, IdempotencyKey.parse(raw).toString());
      parsed = true;
    } catch (MalformedKeyException e) {
      parsed = false;
    }
    assertEquals(parsed, IdempotencyKey.isWellFormed(raw), raw);
  }

  @Test
  void wellFormedAcceptsTheLongestKeyAndRefusesOneCharacterMore() {
    String id = "a".repeat(64);
    assertTrue(IdempotencyKey.isWellFormed(id + ":" + id + ":9999999999999:" + "f".repeat(64)));
    assertFalse(IdempotencyKey.isWellFormed(id + "a:" + id + ":9999999999999:" + "f".repeat(63)));
    assertFalse(IdempotencyKey.isWellFormed(null));
  }

  @Test
  void nonceErrorSaysWhatWasGotAndWanted() {
    MalformedKeyException e =
        assertThrows(
            MalformedKeyException.class, () -> IdempotencyKey.parse("d:u:1732953600000:xyz"));
    assertEquals(
        "idempotency key nonce: got \"xyz\" (3 chars), want at least 16 hex digits",
        e.getMessage());
  }

  @Test
  void rejectsNull() {
    assertEquals(
        "format",
        assertThrows(MalformedKeyException.class, () -> IdempotencyKey.parse(null)).part());
  }

  @Test
  void rejectsOversizedKeyWithoutEchoingIt() {
    String raw = "d:u:1732953600000:" + "a".repeat(1_000_000);
    MalformedKeyException e =
        assertThrows(MalformedKeyException.class, () -> IdempotencyKey.parse(raw));
    assertEquals("format", e.part());
    assertTrue(e.getMessage().length() < 200, e.getMessage());
  }

  @Test
  void rejectsOversizedParts() {
    String longId = "a".repeat(65);
    assertEquals(
        "deviceId",
        assertThrows(
                MalformedKeyException.class,
                () -> IdempotencyKey.parse(longId + ":u:1732953600000:" + NONCE))
            .part());
    assertEquals(
        "userId",
        assertThrows(
                MalformedKeyException.class,
                () -> IdempotencyKey.parse("d:" + longId + ":1732953600000:" + NONCE))
            .part());
    MalformedKeyException nonce =
        assertThrows(
            MalformedKeyException.class,
            () -> IdempotencyKey.parse("d:u:1732953600000:" + "a".repeat(65)));
    assertEquals("nonce", nonce.part());
    assertTrue(nonce.getMessage().contains("want at most 64 hex digits"), nonce.getMessage());
  }

  @Test
  void escapesControlCharactersInMessages() {
    MalformedKeyException e =
        assertThrows(
            MalformedKeyException.class,
            () -> IdempotencyKey.parse("d\u0000\u202e:u:1732953600000:" + NONCE));
    assertTrue(e.getMessage().contains("\\u0000\\u202E"), e.getMessage());
  }

  @Test
  void constructorAppliesTheSameRules() {
    assertEquals(
        "unixMillis",
        assertThrows(
                MalformedKeyException.class,
                () -> new IdempotencyKey("d", "u", 999_999_999_999L, NONCE))
            .part());
    assertEquals(
        "unixMillis",
        assertThrows(
                MalformedKeyException.class,
                () -> new IdempotencyKey("d", "u", 10_000_000_000_000L, NONCE))
            .part());
    assertEquals(
        "deviceId",
        assertThrows(
                MalformedKeyException.class,
                () -> new IdempotencyKey(null, "u", 1732953600000L, NONCE))
            .part());
    assertEquals(
        "nonce",
        assertThrows(
                MalformedKeyException.class,
                () -> new IdempotencyKey("d", "u", 1732953600000L, null))
            .part());
  }

  @Test
  void generatesFreshKeysStampedWithTheClock() throws Exception {
    MutableClock clock = new MutableClock(Instant.ofEpochMilli(1732953600123L));
    SecureRandom random = SecureRandom.getInstance("SHA1PRNG");
    random.setSeed(42L);
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < 100; i++) {
      IdempotencyKey key = IdempotencyKey.generate("dev", "usr", clock, random);
      assertEquals(1732953600123L, key.unixMillis());
      assertTrue(key.nonce().matches("[0-9a-f]{32}"), key.nonce());
      assertEquals(key, IdempotencyKey.parse(key.toString()));
      assertTrue(seen.add(key.toString()), "repeated key " + key);
    }
  }

  @Test
  void generateRefusesAClockOutsideThirteenDigits() throws Exception {
    SecureRandom random = SecureRandom.getInstance("SHA1PRNG");
    random.setSeed(1L);
    MalformedKeyException e =
        assertThrows(
            MalformedKeyException.class,
            () ->
                IdempotencyKey.generate(
                    "d", "u", new MutableClock(Instant.ofEpochMilli(0)), random));
    assertEquals("unixMillis", e.part());
  }

  @Test
  void validIdsAreAsciiOnly() {
    assertTrue(IdempotencyKey.isValidId("A-z_0"));
    assertFalse(IdempotencyKey.isValidId(""));
    assertFalse(IdempotencyKey.isValidId(null));
    assertFalse(IdempotencyKey.isValidId("é"));
    assertFalse(IdempotencyKey.isValidId("a".repeat(65)));
  }

  @Property(seed = "20261130", tries = 300)
  void parseInvertsToString(
      @ForAll("ids") String device,
      @ForAll("ids") String user,
      @ForAll @LongRange(min = 1_000_000_000_000L, max = 9_999_999_999_999L) long millis,
      @ForAll("nonces") String nonce) {
    IdempotencyKey key = new IdempotencyKey(device, user, millis, nonce);
    assertEquals(key, IdempotencyKey.parse(key.toString()));
  }

  @Property(seed = "20261131", tries = 500)
  void parseThrowsOnlyMalformedKeyException(@ForAll("noise") String raw) {
    try {
      IdempotencyKey key = IdempotencyKey.parse(raw);
      assertEquals(raw, key.toString());
    } catch (MalformedKeyException e) {
      assertTrue(
          Set.of("deviceId", "userId", "unixMillis", "nonce", "format").contains(e.part()),
          e.part());
    }
  }

  @Provide
  Arbitrary<String> ids() {
    return Arbitraries.strings().withChars("abcXYZ019_-").ofMinLength(1).ofMaxLength(64);
  }

  @Provide
  Arbitrary<String> nonces() {
    return Arbitraries.strings()
        .withChars("0123456789abcdefABCDEF")
        .ofMinLength(16)
        .ofMaxLength(64);
  }

  @Provide
  Arbitrary<String> noise() {
    return Arbitraries.strings()
        .withChars("ab09:_-fF\u0000é１")
        .ofMaxLength(60)
        .injectDuplicates(0.1);
  }
}
