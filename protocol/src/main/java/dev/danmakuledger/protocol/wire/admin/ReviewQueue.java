package dev.danmakuledger.protocol.wire.admin;

import dev.danmakuledger.protocol.wire.Checks;
import java.util.List;

/**
 * Reply of {@code GET /admin/review}.
 *
 * @param items the held messages
 */
public record ReviewQueue(List<ReviewItem> items) {
  /** Checks that required members are present and counts are not negative. */
  public ReviewQueue {
    items = Checks.list("items", items);
  }
}
