package dev.danmakuledger.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Reading {@code CLUSTER NODES} (https://redis.io/commands/cluster-nodes/) after a failover. */
class RedisClusterNodesTest {
  @Test
  void readsRolesFailuresAndMastersOfReplicas() {
    String text =
        "07c3 127.0.0.1:30004@40004 slave e7d1 0 1426238317239 4 connected\n"
            + "67ed 127.0.0.1:30002@40002 master - 0 1426238316232 2 connected 5461-10922\n"
            + "292f 127.0.0.1:30003@40003 master - 0 1426238318243 3 connected 10923-16383\n"
            + "6ec2 127.0.0.1:30005@40005 master,fail - 1426238316232 1426238314000 5 connected\n"
            + "824f 127.0.0.1:30006@40006 slave 292f 0 1426238317741 6 connected\n"
            + "e7d1 127.0.0.1:30001@40001 myself,master - 0 0 7 connected 0-5460\n";
    List<RedisClusterNodes.NodeInfo> nodes = RedisClusterNodes.parseNodes(text);
    assertEquals(6, nodes.size());
    assertEquals(new RedisClusterNodes.NodeInfo("07c3", 30004, false, false, "e7d1"), nodes.get(0));
    assertEquals(new RedisClusterNodes.NodeInfo("6ec2", 30005, true, true, null), nodes.get(3));
    assertEquals(new RedisClusterNodes.NodeInfo("e7d1", 30001, true, false, null), nodes.get(5));
  }
}
