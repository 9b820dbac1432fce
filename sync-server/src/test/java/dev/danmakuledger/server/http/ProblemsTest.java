package dev.danmakuledger.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.server.storage.StorageUnavailableException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

class ProblemsTest {
  @Test
  void anUnclassifiedRedisConnectionFailureIsA503WithRetryAfter() {
    Problems.Mapped m =
        Problems.map(
            new RedisConnectionException("Unable to connect to 127.0.0.1:7001"),
            "/v1/devices/d/batches",
            "t1");

    assertEquals(503, m.problem().status());
    assertEquals(ErrorCode.REDIS_UNAVAILABLE.code(), m.problem().code());
    assertEquals("/v1/devices/d/batches", m.problem().instance());
    assertEquals(Problems.RETRY_AFTER_SECONDS, m.retryAfterSeconds());
  }

  @Test
  void aRedisCommandTimeoutIsA503() {
    Problems.Mapped m =
        Problems.map(new RedisCommandTimeoutException("Command timed out"), "/admin/rooms", "t2");

    assertEquals(503, m.problem().status());
    assertEquals(Problems.RETRY_AFTER_SECONDS, m.retryAfterSeconds());
  }

  @Test
  void theDatabaseAwayIsA503() {
    Problems.Mapped m =
        Problems.map(
            new StorageUnavailableException("pool", new SQLException("refused")), "/x", "t3");

    assertEquals(503, m.problem().status());
    assertEquals(ErrorCode.SQL_UNAVAILABLE.code(), m.problem().code());
  }

  @Test
  void anythingElseStaysA500WithoutRetryAfter() {
    Problems.Mapped m = Problems.map(new IllegalStateException("bug"), "/x", "t4");

    assertEquals(500, m.problem().status());
    assertEquals(ErrorCode.INTERNAL.code(), m.problem().code());
    assertNull(m.retryAfterSeconds());
  }
}
