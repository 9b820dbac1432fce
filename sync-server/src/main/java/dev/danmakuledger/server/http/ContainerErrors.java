package dev.danmakuledger.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.protocol.error.Problem;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.handler.ErrorHandler;

/**
 * The container's own errors as RFC 9457 problem+json in UTF-8: what Jetty answers before or
 * instead of an endpoint (a request line or header it cannot parse, headers over the size limit
 * (431), an ambiguous or undecodable request target, a body that arrives too slowly (408)). Without
 * it those answers are HTML pages, which no client of this API reads.
 */
final class ContainerErrors extends ErrorHandler {
  private final ObjectMapper json;

  ContainerErrors(ObjectMapper json) {
    this.json = json;
  }

  /** The stable code for a status the container answers on its own. */
  static ErrorCode codeFor(int status) {
    return switch (status) {
      case 404 -> ErrorCode.NOT_FOUND;
      case 405 -> ErrorCode.METHOD_NOT_ALLOWED;
      case 408 -> ErrorCode.REQUEST_TIMEOUT;
      case 413 -> ErrorCode.BODY_TOO_LARGE;
      case 414 -> ErrorCode.URI_TOO_LONG;
      case 429 -> ErrorCode.RATE_LIMITED;
      case 431 -> ErrorCode.HEADERS_TOO_LARGE;
      case 503 -> ErrorCode.OVERLOADED;
      default -> status >= 400 && status < 500 ? ErrorCode.MALFORMED_REQUEST : ErrorCode.INTERNAL;
    };
  }

  /** What a client should do, for the detail member. */
  static String advice(ErrorCode code) {
    return switch (code) {
      case HEADERS_TOO_LARGE -> "send fewer or shorter header fields";
      case URI_TOO_LONG -> "send a shorter request target";
      case REQUEST_TIMEOUT -> "the request arrived too slowly; send it whole and promptly";
      case BODY_TOO_LARGE -> "send a smaller body";
      case MALFORMED_REQUEST ->
          "send well-formed HTTP/1.1 with a canonical, percent-decodable request target";
      default -> "see docs/errors.md";
    };
  }

  byte[] body(int status, String reason, String instance) {
    ErrorCode code = codeFor(status);
    String detail =
        (reason == null || reason.isBlank() ? code.title() : Requests.quote(reason))
            + "; "
            + advice(code);
    Problem p = Problem.of(code, detail);
    if (instance != null) {
      p = p.withInstance(instance);
    }
    try {
      return json.writeValueAsBytes(p);
    } catch (JsonProcessingException e) {
      return ("{\"status\":" + code.status() + "}").getBytes(StandardCharsets.UTF_8);
    }
  }

  /** Errors after the request was parsed (servlet {@code sendError}), for every method. */
  @Override
  public void handle(
      String target, Request baseRequest, HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    baseRequest.setHandled(true);
    Object message = request.getAttribute(RequestDispatcher.ERROR_MESSAGE);
    int status = response.getStatus();
    byte[] bytes = body(status, message == null ? null : message.toString(), null);
    if (codeFor(status).status() != status) {
      response.setStatus(codeFor(status).status());
    }
    response.setContentType(Problem.MEDIA_TYPE);
    response.setContentLength(bytes.length);
    response.getOutputStream().write(bytes);
  }

  /** Errors of the HTTP parser (bad request line, 431), answered before any servlet runs. */
  @Override
  public ByteBuffer badMessageError(int status, String reason, HttpFields.Mutable fields) {
    fields.put(new HttpField(HttpHeader.CONTENT_TYPE, Problem.MEDIA_TYPE));
    return ByteBuffer.wrap(body(status, reason, null));
  }
}
