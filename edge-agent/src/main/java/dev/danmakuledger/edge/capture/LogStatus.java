package dev.danmakuledger.edge.capture;

/** The committed device log: size, root (hex) and the latest signed checkpoint note (or null). */
public record LogStatus(long size, String rootHex, String checkpoint) {
  public LogStatus {
    if (size < 0 || rootHex == null) {
      throw new IllegalArgumentException("log status: got size " + size + ", root " + rootHex);
    }
  }
}
