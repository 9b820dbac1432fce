package dev.danmakuledger.lua;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.danmakuledger.lua.Admission.Status;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * Exactly-once invariants of admit (docs/lua-scripts.md, properties), run unchanged on every
 * backend: any interleaving of repeated admits from concurrent callers gives each key one seq and a
 * room exactly 1..n; every answer equals the first admission of its key. Each try uses a fresh
 * room.
 */
abstract class AdmitPropertiesContract {
  static final Duration TTL = Duration.ofMinutes(10);
  static final AtomicLong IDS = new AtomicLong();

  /** The runner under test. */
  abstract DedupeScripts scripts();

  /** A name no other try, test or user of the backend uses. */
  abstract String unique(String base);

  /** Threads for concurrent callers. */
  abstract ExecutorService callers();

  private record Answer(String key, AdmitItem item, Admission admission) {}

  @Property(seed = "424242", tries = 40)
  void concurrentRepeatedAdmitsGiveEachKeyExactlyOneSeq(
      @ForAll @IntRange(min = 1, max = 40) int keyCount,
      @ForAll @IntRange(min = 2, max = 4) int callerCount,
      @ForAll Random random)
      throws Exception {
    String room = unique("concurrent");
    scripts().seed(room, 0);
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < keyCount; i++) {
      keys.add("dev:user:" + (1_700_000_000_000L + i) + ":" + Long.toHexString(random.nextLong()));
    }
    List<List<List<AdmitItem>>> plans = new ArrayList<>();
    for (int c = 0; c < callerCount; c++) {
      List<String> mine = new ArrayList<>(keys);
      for (int extra = random.nextInt(keyCount + 1); extra > 0; extra--) {
        mine.add(keys.get(random.nextInt(keyCount)));
      }
      Collections.shuffle(mine, random);
      List<List<AdmitItem>> batches = new ArrayList<>();
      for (int at = 0; at < mine.size(); ) {
        int size = Math.min(mine.size() - at, 1 + random.nextInt(8));
        List<AdmitItem> batch = new ArrayList<>();
        for (String key : mine.subList(at, at + size)) {
          batch.add(new AdmitItem(key, "c0ffee", IDS.incrementAndGet()));
        }
        batches.add(batch);
        at += size;
      }
      plans.add(batches);
    }

    List<Future<List<Answer>>> running = new ArrayList<>();
    for (List<List<AdmitItem>> plan : plans) {
      running.add(
          callers()
              .submit(
                  () -> {
                    List<Answer> answers = new ArrayList<>();
                    for (List<AdmitItem> batch : plan) {
                      List<Admission> got = scripts().admit(room, batch, TTL);
                      for (int i = 0; i < batch.size(); i++) {
                        answers.add(
                            new Answer(batch.get(i).idempotencyKey(), batch.get(i), got.get(i)));
                      }
                    }
                    return answers;
                  }));
    }
    List<Answer> all = new ArrayList<>();
    for (Future<List<Answer>> f : running) {
      all.addAll(f.get());
    }

    Map<String, List<Answer>> byKey = all.stream().collect(Collectors.groupingBy(Answer::key));
    assertEquals(keyCount, byKey.size());
    List<Long> seqs = new ArrayList<>();
    for (Map.Entry<String, List<Answer>> e : byKey.entrySet()) {
      List<Answer> fresh =
          e.getValue().stream().filter(a -> a.admission().status() == Status.NEW).toList();
      assertEquals(1, fresh.size(), "key " + e.getKey() + " got NEW " + fresh.size() + " times");
      Admission first = fresh.get(0).admission();
      assertEquals(fresh.get(0).item().candidateMessageId(), first.messageId());
      for (Answer a : e.getValue()) {
        assertEquals(first.seq(), a.admission().seq(), "one seq per key");
        assertEquals(first.messageId(), a.admission().messageId(), "the first message id");
      }
      seqs.add(first.seq());
    }
    Collections.sort(seqs);
    assertEquals(LongStream.rangeClosed(1, keyCount).boxed().toList(), seqs, "seqs are 1..n");
    assertEquals(keyCount, scripts().currentSeq(room));
  }

  @Property(seed = "777", tries = 60)
  void everyAnswerMatchesTheFirstAdmissionOfItsKey(@ForAll Random random) throws Exception {
    String room = unique("model");
    scripts().seed(room, 0);
    record First(long seq, long messageId, String hash) {}
    Map<String, First> model = new HashMap<>();
    long next = 1;
    for (int call = 0; call < 6; call++) {
      List<AdmitItem> batch = new ArrayList<>();
      for (int i = 1 + random.nextInt(6); i > 0; i--) {
        String key = "k" + random.nextInt(8);
        batch.add(new AdmitItem(key, random.nextBoolean() ? "aa" : "bb", IDS.incrementAndGet()));
      }
      List<Admission> got = scripts().admit(room, batch, TTL);
      for (int i = 0; i < batch.size(); i++) {
        AdmitItem item = batch.get(i);
        First first = model.get(item.idempotencyKey());
        Admission want;
        if (first == null) {
          want = new Admission(Status.NEW, next++, item.candidateMessageId());
          model.put(
              item.idempotencyKey(), new First(want.seq(), want.messageId(), item.contentHash()));
        } else {
          Status status =
              first.hash().equals(item.contentHash()) ? Status.DUPLICATE : Status.CONFLICT;
          want = new Admission(status, first.seq(), first.messageId());
        }
        assertEquals(want, got.get(i), "call " + call + " item " + i + " " + item);
      }
    }
  }
}
