package dev.danmakuledger.server.kafka;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * Creates the relay's topics when they do not exist (docs/kafka.md, "Set-up"): the message topic
 * with the brokers' defaults, and the positions topic, compacted, with one partition per shard.
 */
final class RelayTopics {
  private RelayTopics() {}

  static void ensure(KafkaRelayConfig config) {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrap());
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000);
    try (Admin admin = Admin.create(p)) {
      Set<String> existing = admin.listTopics().names().get(15, TimeUnit.SECONDS);
      List<NewTopic> missing = new ArrayList<>();
      if (!existing.contains(config.topic())) {
        missing.add(new NewTopic(config.topic(), Optional.empty(), Optional.empty()));
      }
      if (!existing.contains(config.positionsTopic())) {
        missing.add(
            new NewTopic(config.positionsTopic(), Optional.of(config.shards()), Optional.empty())
                .configs(
                    Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT)));
      }
      for (NewTopic t : missing) {
        try {
          admin.createTopics(List.of(t)).all().get(15, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof TopicExistsException)) {
            throw e;
          }
        }
      }
      TopicDescription positions =
          admin
              .describeTopics(List.of(config.positionsTopic()))
              .allTopicNames()
              .get(15, TimeUnit.SECONDS)
              .get(config.positionsTopic());
      if (positions.partitions().size() < config.shards()) {
        throw new IllegalStateException(
            config.positionsTopic()
                + ": got "
                + positions.partitions().size()
                + " partitions, want one per shard ("
                + config.shards()
                + ")");
      }
    } catch (ExecutionException e) {
      throw e.getCause() instanceof KafkaException k
          ? k
          : new KafkaException("cannot create the relay's topics", e.getCause());
    } catch (java.util.concurrent.TimeoutException e) {
      throw new org.apache.kafka.common.errors.TimeoutException(
          "cannot create the relay's topics in time", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KafkaException("interrupted creating the relay's topics", e);
    }
  }
}
