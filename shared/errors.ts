/**
 * Errors the domain raises on purpose. Each carries a stable code from the contract's registry (CONTRACT §1);
 * `shared/http/problem.ts` is the one place that turns a code into an HTTP status.
 */
export type ErrorCode =
  | 'VALIDATION_FAILED'
  | 'MALFORMED_JSON'
  | 'UNAUTHORIZED'
  | 'ORG_MISMATCH'
  | 'INVALID_CLIENT'
  | 'FORBIDDEN'
  | 'ROUTE_NOT_FOUND'
  | 'CHANNEL_NOT_FOUND'
  | 'REQUEST_NOT_FOUND'
  | 'CHAT_NOT_FOUND'
  | 'REPORT_NOT_FOUND'
  | 'WEBHOOK_NOT_FOUND'
  | 'SCHEDULE_NOT_FOUND'
  | 'DELIVERY_NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'IDEMPOTENCY_KEY_IN_USE'
  | 'REPORT_RATE_LIMITED'
  | 'REPORT_NOT_READY'
  | 'REPORT_FAILED'
  | 'DELIVERY_IN_PROGRESS'
  | 'SCHEDULE_CONFLICT'
  | 'REPORT_EXPIRED'
  | 'ITERATOR_EXPIRED'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'CHANNEL_NOT_ELIGIBLE'
  | 'NOT_A_GROUP'
  | 'CHANNEL_NOT_SUPPORTED'
  | 'IDEMPOTENCY_KEY_REUSED'
  | 'WEBHOOK_URL_NOT_ALLOWED'
  | 'NETWORK_REJECTED'
  | 'GROUP_DELETED'
  | 'WEBHOOK_LIMIT_REACHED'
  | 'SCHEDULE_LIMIT_REACHED'
  | 'RATE_LIMITED'
  | 'TOO_MANY_ATTEMPTS'
  | 'INTERNAL'
  | 'NETWORK_UNAVAILABLE'
  | 'MESSAGE_NOT_FOUND'
  | 'ORG_SUSPENDED'
  | 'CHANNEL_DISABLED';

/** One validation problem: a JSON Pointer into the body, or `#/query/<name>`, `#/path/<name>`, `#/header/<name>`. */
export interface FieldError {
  pointer: string;
  message: string;
}

export interface DomainErrorOptions {
  /** Overrides the code's usual status, where the contract says so (422 VALIDATION_FAILED for a semantic check). */
  status?: number;
  /** Extra members of the problem document (e.g. `reason`, `networkCode`, `reportId`). Never secrets. */
  extensions?: Record<string, unknown>;
  /** Seconds the caller should wait; becomes `Retry-After`. */
  retryAfterSeconds?: number;
  errors?: FieldError[];
  cause?: unknown;
}

export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly extensions: Record<string, unknown>;
  readonly retryAfterSeconds: number | undefined;
  readonly errors: FieldError[] | undefined;
  readonly status: number | undefined;

  constructor(code: ErrorCode, detail: string, options: DomainErrorOptions = {}) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.extensions = options.extensions ?? {};
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.errors = options.errors;
    this.status = options.status;
  }
}

export class ValidationError extends DomainError {
  constructor(errors: FieldError[], detail = 'the request is not valid') {
    super('VALIDATION_FAILED', detail, { errors });
  }
}

export class MalformedJsonError extends DomainError {
  constructor() {
    super('MALFORMED_JSON', 'the request body is not valid JSON');
  }
}

export class UnauthorizedError extends DomainError {
  constructor(detail = 'a valid bearer token is required') {
    super('UNAUTHORIZED', detail);
  }
}

/**
 * A console sign-in refused (CONTRACT §24): a link's code that was `used`, has `expired` or is `unknown`, or a
 * session that is `signed-out` (or never was) or has `expired`. The `reason` tells the sign-in page what to say.
 */
export class ConsoleSignInRefusedError extends DomainError {
  constructor(reason: 'used' | 'expired' | 'unknown' | 'signed-out') {
    super('UNAUTHORIZED', CONSOLE_REFUSALS[reason], { extensions: { reason } });
  }
}

const CONSOLE_REFUSALS = {
  used: 'this sign-in link was already used; ask for a new one',
  expired: 'this sign-in link or session has expired; ask for a new link',
  unknown: 'this sign-in link is not valid; ask for a new one',
  'signed-out': 'there is no console session here (signed out, or never signed in)',
} as const;

export class OrgMismatchError extends DomainError {
  constructor() {
    super('ORG_MISMATCH', 'the organisation in the path does not match the token');
  }
}

export class InvalidClientError extends DomainError {
  constructor() {
    super('INVALID_CLIENT', 'the client credentials are not valid');
  }
}

export class ForbiddenError extends DomainError {
  constructor() {
    super('FORBIDDEN', 'the token has no role that allows this operation');
  }
}

export class RouteNotFoundError extends DomainError {
  constructor(method: string, path: string) {
    super('ROUTE_NOT_FOUND', `no route for ${method} ${path}`);
  }
}

export class MethodNotAllowedError extends DomainError {
  readonly allow: string[];
  constructor(method: string, allow: string[]) {
    super('METHOD_NOT_ALLOWED', `${method} is not allowed here; allowed: ${allow.join(', ')}`);
    this.allow = allow;
  }
}

export class PayloadTooLargeError extends DomainError {
  constructor(limitBytes: number) {
    super('PAYLOAD_TOO_LARGE', `the request body is larger than ${limitBytes} bytes`);
  }
}

export class UnsupportedMediaTypeError extends DomainError {
  constructor() {
    super('UNSUPPORTED_MEDIA_TYPE', 'the request body must be application/json');
  }
}

export class TooManyAttemptsError extends DomainError {
  constructor(retryAfterSeconds: number) {
    super('TOO_MANY_ATTEMPTS', 'too many failed attempts for this client; try again later', { retryAfterSeconds });
  }
}

export class ChannelNotFoundError extends DomainError {
  constructor(channelId: string) {
    super('CHANNEL_NOT_FOUND', `channel ${channelId} does not exist in this organisation`);
  }
}

export class RateLimitedError extends DomainError {
  constructor(detail: string, retryAfterSeconds: number) {
    super('RATE_LIMITED', detail, { retryAfterSeconds });
  }
}

export class RequestNotFoundError extends DomainError {
  constructor(requestId: string) {
    super('REQUEST_NOT_FOUND', `request ${requestId} does not exist in this organisation`);
  }
}

export class ChatNotFoundError extends DomainError {
  constructor(chatId: string) {
    super('CHAT_NOT_FOUND', `chat ${chatId} does not exist in this organisation`);
  }
}

export class NotAGroupError extends DomainError {
  constructor(chatId: string) {
    super('NOT_A_GROUP', `chat ${chatId} is not a group`);
  }
}

export class GroupDeletedError extends DomainError {
  constructor(chatId: string) {
    super('GROUP_DELETED', `group ${chatId} was deleted; it can be read but no longer changed or messaged`);
  }
}

export class ChannelNotSupportedError extends DomainError {
  constructor(channelId: string) {
    super('CHANNEL_NOT_SUPPORTED', `channel ${channelId} cannot send messages through this service`);
  }
}

export class NetworkRejectedError extends DomainError {
  constructor(networkCode: number | undefined, message: string) {
    super('NETWORK_REJECTED', `the messaging network refused the request: ${message}`, { extensions: { networkCode } });
  }
}

export class NetworkUnavailableError extends DomainError {
  constructor(retryAfterSeconds = 30) {
    super('NETWORK_UNAVAILABLE', 'the messaging network is unavailable', { retryAfterSeconds });
  }
}

export class MessageNotFoundError extends DomainError {
  constructor(messageId: string) {
    super('MESSAGE_NOT_FOUND', `message ${messageId} does not exist in this chat`);
  }
}

export class OrgSuspendedError extends DomainError {
  constructor() {
    super('ORG_SUSPENDED', 'the organisation is suspended; contact the operator of this service');
  }
}

/**
 * The organisation is being erased or no longer exists (CONTRACT §17): its tokens answer 401, and a queued job of it
 * is dropped, never put back.
 */
export class OrgGoneError extends UnauthorizedError {
  constructor() {
    super('the organisation no longer exists');
  }
}

export class ChannelDisabledError extends DomainError {
  constructor(channelId: string) {
    super('CHANNEL_DISABLED', `channel ${channelId} is disabled`);
  }
}
