import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { DomainError, type ErrorCode, MethodNotAllowedError } from '#shared/errors';

/** The one table from error code to HTTP status and title (CONTRACT §1). */
export const PROBLEMS: Record<ErrorCode, { status: number; title: string }> = {
  VALIDATION_FAILED: { status: 400, title: 'Validation failed' },
  MALFORMED_JSON: { status: 400, title: 'Malformed JSON' },
  UNAUTHORIZED: { status: 401, title: 'Unauthorized' },
  ORG_MISMATCH: { status: 401, title: 'Organisation mismatch' },
  INVALID_CLIENT: { status: 401, title: 'Invalid client' },
  FORBIDDEN: { status: 403, title: 'Forbidden' },
  ROUTE_NOT_FOUND: { status: 404, title: 'Route not found' },
  CHANNEL_NOT_FOUND: { status: 404, title: 'Channel not found' },
  REQUEST_NOT_FOUND: { status: 404, title: 'Request not found' },
  CHAT_NOT_FOUND: { status: 404, title: 'Chat not found' },
  REPORT_NOT_FOUND: { status: 404, title: 'Report not found' },
  WEBHOOK_NOT_FOUND: { status: 404, title: 'Webhook not found' },
  SCHEDULE_NOT_FOUND: { status: 404, title: 'Schedule not found' },
  DELIVERY_NOT_FOUND: { status: 404, title: 'Delivery not found' },
  MESSAGE_NOT_FOUND: { status: 404, title: 'Message not found' },
  METHOD_NOT_ALLOWED: { status: 405, title: 'Method not allowed' },
  IDEMPOTENCY_KEY_IN_USE: { status: 409, title: 'Idempotency key in use' },
  REPORT_RATE_LIMITED: { status: 409, title: 'Report rate limited' },
  REPORT_NOT_READY: { status: 409, title: 'Report not ready' },
  REPORT_FAILED: { status: 409, title: 'Report failed' },
  DELIVERY_IN_PROGRESS: { status: 409, title: 'Delivery in progress' },
  SCHEDULE_CONFLICT: { status: 409, title: 'Schedule conflict' },
  REPORT_EXPIRED: { status: 410, title: 'Report expired' },
  ITERATOR_EXPIRED: { status: 410, title: 'Iterator expired' },
  PAYLOAD_TOO_LARGE: { status: 413, title: 'Payload too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'Unsupported media type' },
  CHANNEL_NOT_ELIGIBLE: { status: 422, title: 'Channel not eligible' },
  NOT_A_GROUP: { status: 422, title: 'Not a group' },
  CHANNEL_NOT_SUPPORTED: { status: 422, title: 'Channel not supported' },
  IDEMPOTENCY_KEY_REUSED: { status: 422, title: 'Idempotency key reused' },
  WEBHOOK_URL_NOT_ALLOWED: { status: 422, title: 'Webhook URL not allowed' },
  NETWORK_REJECTED: { status: 422, title: 'Network rejected the request' },
  GROUP_DELETED: { status: 422, title: 'Group deleted' },
  WEBHOOK_LIMIT_REACHED: { status: 422, title: 'Webhook limit reached' },
  SCHEDULE_LIMIT_REACHED: { status: 422, title: 'Schedule limit reached' },
  RATE_LIMITED: { status: 429, title: 'Rate limited' },
  TOO_MANY_ATTEMPTS: { status: 429, title: 'Too many attempts' },
  INTERNAL: { status: 500, title: 'Internal error' },
  NETWORK_UNAVAILABLE: { status: 503, title: 'Network unavailable' },
  ORG_SUSPENDED: { status: 403, title: 'Organisation suspended' },
  CHANNEL_DISABLED: { status: 422, title: 'Channel disabled' },
};

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

const problemType = (code: ErrorCode) => `https://wp-crm.dev/problems/${code.toLowerCase().replaceAll('_', '-')}`;

export interface ProblemDocument {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  instance: string;
  errors?: { pointer: string; message: string }[];
  [extension: string]: unknown;
}

/**
 * Turns any thrown value into a problem response. Unknown errors become 500 INTERNAL with no message of their own,
 * so stack traces, SDK messages and ARNs never reach a body; 5xx bodies carry only the code and the request id.
 */
export function problemResponse(error: unknown, requestId: string): APIGatewayProxyStructuredResultV2 {
  const known = error instanceof DomainError ? error : undefined;
  const code: ErrorCode = known?.code ?? 'INTERNAL';
  const { title } = PROBLEMS[code];
  const status = known?.status ?? PROBLEMS[code].status;
  const serverSide = status >= 500;
  const body: ProblemDocument = {
    type: problemType(code),
    title,
    status,
    detail:
      known && !serverSide
        ? known.message
        : serverSide && code === 'NETWORK_UNAVAILABLE'
          ? 'NETWORK_UNAVAILABLE'
          : 'INTERNAL',
    code,
    instance: requestId,
    ...(known && !serverSide ? known.extensions : {}),
  };
  if (known?.errors?.length) body.errors = known.errors;
  const headers: Record<string, string> = { 'content-type': PROBLEM_CONTENT_TYPE, 'x-request-id': requestId };
  if (known?.retryAfterSeconds !== undefined) {
    const seconds = Math.max(1, Math.ceil(known.retryAfterSeconds));
    headers['retry-after'] = String(seconds);
    if (status === 409 || status === 429) body.retryAfterSeconds ??= seconds;
  }
  if (status === 401) {
    headers['www-authenticate'] =
      code === 'UNAUTHORIZED' ? 'Bearer realm="wp-crm", error="invalid_token"' : 'Bearer realm="wp-crm"';
  }
  if (error instanceof MethodNotAllowedError) headers.allow = error.allow.join(', ');
  return { statusCode: status, headers, body: JSON.stringify(body) };
}
