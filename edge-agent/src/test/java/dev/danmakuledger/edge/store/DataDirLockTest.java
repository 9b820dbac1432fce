package dev.danmakuledger.edge.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DataDirLockTest {
  @TempDir Path dir;

  @Test
  void secondOwnerIsRefusedWithThePidAndTheApiAddress() throws Exception {
    try (DataDirLock lock = DataDirLock.acquire(dir)) {
      lock.advertise("127.0.0.1:7071");
      StoreLockedException e =
          assertThrows(StoreLockedException.class, () -> DataDirLock.acquire(dir));
      assertEquals("127.0.0.1:7071", e.apiAddress().orElseThrow());
      assertEquals(Long.toString(ProcessHandle.current().pid()), e.owner().orElseThrow());
      assertTrue(e.getMessage().contains("another edge-agent owns " + dir), e.getMessage());
      assertTrue(e.getMessage().contains("http://127.0.0.1:7071"), e.getMessage());
    }
  }

  @Test
  void lockIsFreeAgainAfterClose() throws Exception {
    DataDirLock.acquire(dir).close();
    try (DataDirLock again = DataDirLock.acquire(dir)) {
      assertEquals(dir, again.dataDir());
    }
  }
}
