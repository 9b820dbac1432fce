package dev.danmakuledger.bench.ingest;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.PublishOptions;
import io.nats.client.api.PublishAck;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The peer a user could pick instead (docs/benchmarks.md): NATS JetStream with {@code Nats-Msg-Id}
 * de-duplication on a file-storage stream, publishing the same messages with the same retries,
 * batch by batch (async publishes, then wait for every ack), one connection per device. The stream
 * is created for the run and deleted afterwards.
 */
final class NatsJetStreamBaseline {
  static final String NAME = "nats-jetstream-msgid";

  private NatsJetStreamBaseline() {}

  /**
   * Publishes {@code perDevice} and times it, after the same procedure ran untimed on {@code
   * warmUp} (unless empty) into a stream of its own, deleted after.
   */
  static Measured run(
      String natsUrl,
      List<List<List<DanmakuRecord>>> perDevice,
      List<List<List<DanmakuRecord>>> warmUp,
      String runId) {
    if (!warmUp.isEmpty()) {
      Measured warm = publishAll(natsUrl, warmUp, runId + "w");
      if (!warm.measured()) {
        return warm;
      }
    }
    return publishAll(natsUrl, perDevice, runId);
  }

  private static Measured publishAll(
      String natsUrl, List<List<List<DanmakuRecord>>> perDevice, String runId) {
    String stream = "DANMAKU_BENCH_" + runId.toUpperCase(java.util.Locale.ROOT);
    String subject = "danmaku.bench." + runId;
    Options options =
        new Options.Builder()
            .server(natsUrl)
            .connectionTimeout(Duration.ofSeconds(2))
            .maxReconnects(0)
            .build();
    Connection admin;
    try {
      admin = Nats.connect(options);
    } catch (IOException e) {
      return Measured.notMeasured(
          NAME, "no NATS server at " + natsUrl + " (" + e.getMessage() + ")");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Measured.notMeasured(NAME, "interrupted while connecting to " + natsUrl);
    }
    ExecutorService pool = Executors.newFixedThreadPool(perDevice.size());
    try {
      JetStreamManagement jsm = admin.jetStreamManagement();
      jsm.addStream(
          StreamConfiguration.builder()
              .name(stream)
              .subjects(subject + ".>")
              .storageType(StorageType.File)
              .duplicateWindow(Duration.ofMinutes(10))
              .build());
      AtomicLong duplicates = new AtomicLong();
      long records = perDevice.stream().flatMap(List::stream).mapToLong(List::size).sum();
      List<Future<Latencies>> running = new ArrayList<>();
      long start = System.nanoTime();
      for (List<List<DanmakuRecord>> batches : perDevice) {
        running.add(pool.submit(() -> publish(options, subject, batches, duplicates)));
      }
      Latencies all = new Latencies();
      for (Future<Latencies> f : running) {
        all.merge(f.get());
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      long stored = jsm.getStreamInfo(stream).getStreamState().getMsgCount();
      return new Measured(
          NAME,
          records,
          seconds,
          all.percentileMs(99),
          "file storage; " + stored + " stored, " + duplicates.get() + " acked as duplicate");
    } catch (Exception e) {
      return Measured.notMeasured(NAME, "JetStream failed: " + e);
    } finally {
      pool.shutdownNow();
      try {
        admin.jetStreamManagement().deleteStream(stream);
      } catch (Exception e) {
        // the stream may not exist if creation failed
      }
      try {
        admin.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static Latencies publish(
      Options options, String subject, List<List<DanmakuRecord>> batches, AtomicLong duplicates)
      throws Exception {
    ObjectMapper json = new ObjectMapper();
    Latencies lat = new Latencies();
    Connection c = Nats.connect(options);
    try {
      JetStream js = c.jetStream();
      for (List<DanmakuRecord> batch : batches) {
        long t0 = System.nanoTime();
        List<CompletableFuture<PublishAck>> acks = new ArrayList<>(batch.size());
        for (DanmakuRecord r : batch) {
          Map<String, Object> body = new LinkedHashMap<>();
          body.put("key", r.key().toString());
          body.put("room", r.room());
          body.put("user", r.user());
          body.put("text", r.text());
          body.put("playbackMs", r.playbackMs());
          body.put("hlc", r.hlc());
          acks.add(
              js.publishAsync(
                  subject + "." + r.room(),
                  json.writeValueAsBytes(body),
                  PublishOptions.builder().messageId(r.key().toString()).build()));
        }
        for (CompletableFuture<PublishAck> ack : acks) {
          if (ack.get(30, TimeUnit.SECONDS).isDuplicate()) {
            duplicates.incrementAndGet();
          }
        }
        lat.add(System.nanoTime() - t0);
      }
    } finally {
      c.close();
    }
    return lat;
  }
}
