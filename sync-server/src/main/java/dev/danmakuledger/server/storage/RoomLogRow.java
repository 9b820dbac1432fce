package dev.danmakuledger.server.storage;

import java.util.Objects;

/**
 * The stored state of one room log ({@code room_logs}): the integrated size, its RFC 6962 root and
 * the signed checkpoint note of that size (docs/room-log.md, "Integration").
 *
 * @param room the room
 * @param size number of integrated entries (leaf i is seq i + 1)
 * @param root RFC 6962 root of the first {@code size} entries
 * @param checkpoint the signed checkpoint note of {@code size}, null before the first publication
 * @param publishedAt when {@code checkpoint} was signed (epoch ms), 0 before the first one
 * @param version optimistic version, raised by every integration step
 */
public record RoomLogRow(
    String room, long size, byte[] root, String checkpoint, long publishedAt, long version) {

  public RoomLogRow {
    Objects.requireNonNull(room, "room");
    Objects.requireNonNull(root, "root");
    if (size < 0) {
      throw new IllegalArgumentException("size: got " + size + ", want >= 0");
    }
    root = root.clone();
  }

  @Override
  public byte[] root() {
    return root.clone();
  }
}
