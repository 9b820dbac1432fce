package dev.danmakuledger.bench.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Topic chores of the benchmark: create, delete, read one back as records for another. */
final class TopicRecords {
  private TopicRecords() {}

  static void create(String bootstrap, String topic) throws Exception {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    try (Admin admin = Admin.create(p)) {
      admin
          .createTopics(List.of(new NewTopic(topic, Optional.empty(), Optional.empty())))
          .all()
          .get(30, TimeUnit.SECONDS);
    }
  }

  /** Deletes {@code topics}, so that many rounds of a run do not fill the broker's disk. */
  static void delete(String bootstrap, String... topics) throws Exception {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    try (Admin admin = Admin.create(p)) {
      admin.deleteTopics(List.of(topics)).all().get(30, TimeUnit.SECONDS);
    }
  }

  /** The committed records of {@code topic}, as records for {@code to} (key, value, headers). */
  static List<ProducerRecord<String, String>> read(String bootstrap, String topic, String to) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5_000);
    List<ProducerRecord<String, String>> out = new ArrayList<>();
    try (KafkaConsumer<String, String> c =
        new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
      List<TopicPartition> parts = new ArrayList<>();
      for (PartitionInfo pi : c.partitionsFor(topic)) {
        parts.add(new TopicPartition(topic, pi.partition()));
      }
      c.assign(parts);
      c.seekToBeginning(parts);
      var end = c.endOffsets(parts);
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
      while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("reading " + topic + " took over 2 min");
        }
        for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
          out.add(new ProducerRecord<>(to, null, r.key(), r.value(), r.headers()));
        }
      }
    }
    return out;
  }
}
