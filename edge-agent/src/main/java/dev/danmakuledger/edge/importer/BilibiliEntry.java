package dev.danmakuledger.edge.importer;

import dev.danmakuledger.edge.capture.CaptureRequest;

/**
 * One {@code <d p="...">text</d>} element of a Bilibili danmaku file as read by {@link
 * BilibiliImporter#readEntries}, before it is turned into a capture: for callers that capture the
 * entries of one file on several devices or rooms (the demo splits the sample this way), with the
 * same keys and content {@code edge-agent import} derives.
 *
 * @param line the entry's line in the file
 * @param p the raw {@code p} attribute, or null when the element has none
 * @param text the element's text
 */
public record BilibiliEntry(long line, String p, String text) {
  public BilibiliEntry {
    if (text == null) {
      throw new IllegalArgumentException("line " + line + ": got no text, want the element's text");
    }
  }

  /**
   * The capture request of this entry on {@code deviceId} in {@code room}, exactly as {@link
   * BilibiliImporter#importFile} derives it.
   *
   * @throws IllegalArgumentException naming the malformed part of the entry
   */
  public CaptureRequest request(String deviceId, String room) {
    try {
      return BilibiliImporter.toRequest(deviceId, room, p, text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("line " + line + ": " + e.getMessage(), e);
    }
  }
}
