package dev.danmakuledger.merkle.tiles;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Builds the C2SP tlog-tiles entry bundles of a growing log from its appended entries, keeping only
 * the entries of the current partial bundle. It is the entry-side twin of {@link TileWriter}: entry
 * {@code i} of bundle {@code N} hashes to hash {@code i} of level-0 tile {@code N}.
 *
 * <p>Mutable and not thread-safe.
 */
public final class BundleWriter {
  /** An encoded bundle and its coordinates ({@link TileId#entriesPath()} is where it goes). */
  public record Bundle(TileId id, byte[] data) {
    /** Copies the bytes. */
    public Bundle {
      if (id.level() != 0) {
        throw new IllegalArgumentException("bundle level: got " + id.level() + ", want 0");
      }
      data = data.clone();
    }

    @Override
    public byte[] data() {
      return data.clone();
    }
  }

  private final List<byte[]> pending = new ArrayList<>();
  private long pendingBytes;
  private long size;

  private BundleWriter() {}

  /** Returns a writer for the empty log. */
  public static BundleWriter empty() {
    return new BundleWriter();
  }

  /**
   * Resumes the log of {@code size} entries from its stored partial bundle.
   *
   * @throws TileException if the stored bundle is missing or malformed
   * @throws IOException if the source fails
   */
  public static BundleWriter resume(long size, TileSource source)
      throws IOException, TileException {
    BundleWriter w = new BundleWriter();
    w.size = size;
    TileId partial = Tiles.tileAt(size, 0, Tiles.fullTiles(size, 0));
    if (partial != null) {
      for (byte[] entry : new TileReader(source, size).readBundle(partial)) {
        w.pending.add(entry);
        w.pendingBytes += entry.length;
      }
    }
    return w;
  }

  public long size() {
    return size;
  }

  /** Returns how many entries the writer holds: those of the partial bundle of the current size. */
  public int pendingEntries() {
    return pending.size();
  }

  /** Returns the bytes of the entries the writer holds. */
  public long pendingBytes() {
    return pendingBytes;
  }

  /**
   * Appends one entry and returns the bundle it completed, if any.
   *
   * @throws IllegalArgumentException if the entry exceeds {@link EntryBundle#MAX_ENTRY_BYTES}
   */
  public Optional<Bundle> append(byte[] entry) {
    if (entry.length > EntryBundle.MAX_ENTRY_BYTES) {
      throw new IllegalArgumentException(
          "entry: got " + entry.length + " bytes, want at most " + EntryBundle.MAX_ENTRY_BYTES);
    }
    pending.add(entry.clone());
    pendingBytes += entry.length;
    size++;
    if (pending.size() < TileId.FULL_WIDTH) {
      return Optional.empty();
    }
    Bundle full =
        new Bundle(TileId.full(0, (size - 1) / TileId.FULL_WIDTH), EntryBundle.encode(pending));
    pending.clear();
    pendingBytes = 0;
    return Optional.of(full);
  }

  /** Returns the partial bundle of the current size, if the size is not a multiple of 256. */
  public Optional<Bundle> partialBundle() {
    if (pending.isEmpty()) {
      return Optional.empty();
    }
    TileId id = new TileId(0, size / TileId.FULL_WIDTH, pending.size());
    return Optional.of(new Bundle(id, EntryBundle.encode(pending)));
  }
}
