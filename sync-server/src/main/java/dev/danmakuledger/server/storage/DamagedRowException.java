package dev.danmakuledger.server.storage;

/**
 * A stored row that does not decode to what its table holds (docs/operations.md, "Alerts and
 * quarantine": {@code DAMAGED_ROW}): a device bundle or a room tile whose bytes were changed or cut
 * outside the server. Never the client's fault and never guessed at: the request that needed the
 * row fails with 500, and the operator gets an alert naming the row.
 */
public final class DamagedRowException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  private final String table;
  private final String key;

  /**
   * @param table the table
   * @param key the row's primary key, as text
   * @param detail what does not decode
   */
  public DamagedRowException(String table, String key, String detail) {
    super(table + " row " + key + " is damaged: " + detail);
    this.table = table;
    this.key = key;
  }

  public String table() {
    return table;
  }

  public String key() {
    return key;
  }

  /** The damaged row behind {@code e} (itself or a cause), or null. */
  public static DamagedRowException in(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof DamagedRowException d) {
        return d;
      }
    }
    return null;
  }
}
