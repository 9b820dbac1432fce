package dev.danmakuledger.server.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

final class DatabaseTest {
  @Test
  void mariadbUrlsGetBulkBatchOptions() {
    String url = Database.tuned("jdbc:mariadb://h:3306/db?user=root");
    assertTrue(url.contains("useBulkStmts=true"), url);
    assertTrue(url.contains("rewriteBatchedStatements=true"), url);
    assertEquals(url, Database.tuned(url));
  }

  @Test
  void mysqlUrlsGetRewrittenBatches() {
    assertEquals(
        "jdbc:mysql://h/db?rewriteBatchedStatements=true&characterEncoding=UTF-8",
        Database.tuned("jdbc:mysql://h/db"));
  }

  @Test
  void passwordsAreRedacted() {
    assertEquals(
        "jdbc:mariadb://h/db?user=root&password=***&x=1",
        Database.redact("jdbc:mariadb://h/db?user=root&password=hunter2&x=1"));
  }

  @Test
  void h2UrlIsAFileInMysqlMode() {
    String url = Database.h2Url(java.nio.file.Path.of("/data"));
    assertTrue(
        url.startsWith("jdbc:h2:file:/data/db/ledger;MODE=MySQL;DATABASE_TO_LOWER=TRUE"), url);
  }
}
