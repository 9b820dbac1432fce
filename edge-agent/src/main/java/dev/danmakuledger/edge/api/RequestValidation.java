package dev.danmakuledger.edge.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.danmakuledger.edge.capture.CaptureRequest;
import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.protocol.error.Problem;
import dev.danmakuledger.protocol.key.IdempotencyKey;
import dev.danmakuledger.protocol.key.MalformedKeyException;
import dev.danmakuledger.protocol.record.InvalidRecordException;

/** Every check of an ingest request, in one place: body size, JSON, key, record fields. */
final class RequestValidation {
  private final ObjectMapper json;
  private final String deviceId;

  RequestValidation(ObjectMapper json, String deviceId) {
    this.json = json;
    this.deviceId = deviceId;
  }

  /**
   * The capture request of a {@code POST /v1/danmaku}.
   *
   * @param headerKey the {@code Idempotency-Key} header, or null
   * @throws ApiException with the problem to answer
   */
  CaptureRequest parse(byte[] body, String headerKey) throws ApiException {
    DanmakuPost post;
    try {
      post = json.readValue(body, DanmakuPost.class);
    } catch (JsonProcessingException e) {
      throw new ApiException(Problem.of(ErrorCode.MALFORMED_JSON, e.getOriginalMessage()));
    } catch (java.io.IOException e) {
      throw new ApiException(Problem.of(ErrorCode.MALFORMED_JSON, e.getMessage()));
    }
    if (post == null) {
      throw new ApiException(
          Problem.of(ErrorCode.MALFORMED_JSON, "body is JSON null, want an object"));
    }
    String keyText = post.idempotencyKey();
    if (headerKey != null && keyText != null && !headerKey.equals(keyText)) {
      throw new ApiException(
          Problem.of(
                  ErrorCode.MALFORMED_IDEMPOTENCY_KEY,
                  "Idempotency-Key header "
                      + headerKey
                      + " differs from the body's idempotencyKey "
                      + keyText)
              .with("part", "format"));
    }
    if (keyText == null) {
      keyText = headerKey;
    }
    if (keyText == null || keyText.isEmpty()) {
      throw new ApiException(
          Problem.of(
              ErrorCode.MISSING_IDEMPOTENCY_KEY,
              "send the key as the idempotencyKey member or the Idempotency-Key header:"
                  + " deviceId:userId:unixMillis:nonce"));
    }
    IdempotencyKey key;
    try {
      key = IdempotencyKey.parse(keyText);
    } catch (MalformedKeyException e) {
      throw new ApiException(
          Problem.of(ErrorCode.MALFORMED_IDEMPOTENCY_KEY, e.getMessage()).with("part", e.part()));
    }
    CaptureRequest request =
        new CaptureRequest(
            key,
            post.room(),
            post.user(),
            post.text(),
            post.playbackMs(),
            post.mode() == null ? CaptureRequest.DEFAULT_MODE : post.mode(),
            post.color() == null ? CaptureRequest.DEFAULT_COLOR : post.color(),
            post.fontSize() == null ? CaptureRequest.DEFAULT_FONT_SIZE : post.fontSize());
    try {
      request.draft(deviceId);
    } catch (InvalidRecordException e) {
      String field = e.field().equals("key") ? "idempotencyKey" : e.field();
      throw new ApiException(
          Problem.of(ErrorCode.INVALID_FIELD, e.getMessage()).with("field", field));
    }
    return request;
  }
}
