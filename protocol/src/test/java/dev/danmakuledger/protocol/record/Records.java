package dev.danmakuledger.protocol.record;

import dev.danmakuledger.protocol.key.IdempotencyKey;
import java.util.Map;

/** The records of the golden vectors, and a builder of valid records for tests. */
final class Records {
  private Records() {}

  static DanmakuRecord sample() {
    return GOLDEN.get("ascii");
  }

  static DanmakuRecord record(String device, String user, String nonce, String text) {
    return new DanmakuRecord(
        IdempotencyKey.parse(device + ":" + user + ":1732953600000:" + nonce),
        device,
        "live.main",
        user,
        text,
        null,
        1,
        0xFFFFFF,
        25,
        0,
        0);
  }

  static final Map<String, DanmakuRecord> GOLDEN =
      Map.of(
          "ascii",
          new DanmakuRecord(
              IdempotencyKey.parse("kiosk-01:alice:1732953600000:00112233445566778899aabbccddeeff"),
              "kiosk-01",
              "live.main",
              "alice",
              "hello, world",
              null,
              1,
              0xFFFFFF,
              25,
              1732953600000L << 16,
              0),
          "cjk",
          new DanmakuRecord(
              IdempotencyKey.parse("kiosk-01:bob:1732953600001:FEDCBA9876543210"),
              "kiosk-01",
              "live.main",
              "bob",
              "前方高能预警",
              83456L,
              5,
              0xFF0000,
              25,
              1732953600001L << 16 | 3,
              1),
          "emoji",
          new DanmakuRecord(
              IdempotencyKey.parse("kiosk-01:carol:1732953600002:0123456789abcdef0123456789abcdef"),
              "kiosk-01",
              "r",
              "carol",
              "🎉🎉 \uD83D\uDC68\u200D\uD83D\uDC69\u200D\uD83D\uDC67 ok",
              0L,
              4,
              0x00FF00,
              18,
              1732953600002L << 16,
              2),
          "xml-special",
          new DanmakuRecord(
              IdempotencyKey.parse("box_9:d-e:1000000000000:aaaaaaaaaaaaaaaa"),
              "box_9",
              "A-1_b.c",
              "d-e",
              "<d p=\"1,2\">&amp; 'quoted' & </d>",
              null,
              8,
              0,
              1,
              0,
              9007199254740993L),
          "limits",
          new DanmakuRecord(
              IdempotencyKey.parse(
                  "D".repeat(64) + ":" + "U".repeat(64) + ":9999999999999:" + "f".repeat(64)),
              "D".repeat(64),
              ".".repeat(64),
              "U".repeat(64),
              "😀".repeat(300),
              Long.MAX_VALUE,
              8,
              0xFFFFFF,
              255,
              Long.MAX_VALUE,
              Long.MAX_VALUE));
}
