/** A failure the command line reports as `{"error":{"code","message"}}` on stderr, with its exit status. */
export class CliError extends Error {
  constructor(
    readonly code: 'VALIDATION_FAILED' | 'STACK_NOT_RUNNING',
    message: string,
    readonly exitCode: 1 | 2,
    /** Printed instead of the error line, one JSON line each (data import: `{"line","pointer","message"}`). */
    readonly lines?: unknown[],
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** Bad usage or input; the message names the flag. */
export const invalid = (message: string) => new CliError('VALIDATION_FAILED', message, 1);

/** No stack to talk to (CONTRACT §10: exit 2). */
export const stackNotRunning = (message: string) => new CliError('STACK_NOT_RUNNING', message, 2);
