package dev.danmakuledger.edge.api;

import dev.danmakuledger.protocol.error.Problem;

/** A request refused at the API boundary, with the problem to send back. */
final class ApiException extends Exception {
  private static final long serialVersionUID = 1L;
  private final transient Problem problem;

  ApiException(Problem problem) {
    super(problem.detail());
    this.problem = problem;
  }

  Problem problem() {
    return problem;
  }
}
