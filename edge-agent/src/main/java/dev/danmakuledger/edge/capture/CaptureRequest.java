package dev.danmakuledger.edge.capture;

import dev.danmakuledger.protocol.key.IdempotencyKey;
import dev.danmakuledger.protocol.record.DanmakuRecord;

/**
 * A danmaku to capture, as a client submits it: everything of a {@link DanmakuRecord} except the
 * device id, capture clock and log index, which the agent assigns.
 */
public record CaptureRequest(
    IdempotencyKey key,
    String room,
    String user,
    String text,
    Long playbackMs,
    int mode,
    int color,
    int fontSize) {

  /** Bilibili's defaults: scrolling mode 1, white, font size 25. */
  public static final int DEFAULT_MODE = 1;

  public static final int DEFAULT_COLOR = 0xFFFFFF;
  public static final int DEFAULT_FONT_SIZE = 25;

  /**
   * The record this request becomes on {@code deviceId}, at index 0 with clock 0 until stamped.
   *
   * @throws dev.danmakuledger.protocol.record.InvalidRecordException naming the first bad field,
   *     including a key whose deviceId is not {@code deviceId} and a room a URL cannot address
   *     ({@code .} or {@code ..})
   */
  public DanmakuRecord draft(String deviceId) {
    DanmakuRecord draft =
        new DanmakuRecord(key, deviceId, room, user, text, playbackMs, mode, color, fontSize, 0, 0);
    DanmakuRecord.checkAddressableRoom(room);
    return draft;
  }
}
