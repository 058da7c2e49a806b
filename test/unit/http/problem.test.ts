import { describe, expect, it } from 'vitest';
import { ChannelNotFoundError, DomainError, MethodNotAllowedError, RateLimitedError } from '#shared/errors';
import { PROBLEMS, problemResponse } from '#shared/http/problem';

const parse = (body: string | undefined) => JSON.parse(body ?? '{}') as Record<string, unknown>;

describe('problemResponse', () => {
  it('writes an RFC 9457 document with the code, status and request id as instance', () => {
    const response = problemResponse(new ChannelNotFoundError('ch_1'), 'req-1');

    expect(response.statusCode).toBe(404);
    expect(response.headers).toMatchObject({ 'content-type': 'application/problem+json', 'x-request-id': 'req-1' });
    expect(parse(response.body)).toEqual({
      type: 'https://wp-crm.dev/problems/channel-not-found',
      title: 'Channel not found',
      status: 404,
      detail: 'channel ch_1 does not exist in this organisation',
      code: 'CHANNEL_NOT_FOUND',
      instance: 'req-1',
    });
  });

  it('hides everything of an unknown error behind 500 INTERNAL (C-4)', () => {
    const error = new Error('AccessDeniedException: User arn:aws:iam::123:role/x is not authorized');

    const response = problemResponse(error, 'req-2');

    expect(response.statusCode).toBe(500);
    expect(response.body).not.toContain('arn:aws');
    expect(parse(response.body)).toMatchObject({ code: 'INTERNAL', detail: 'INTERNAL', instance: 'req-2' });
  });

  it('answers an injected TypeError with a generic 500 and its correlation id, without stack or message (C-4)', () => {
    const error = new TypeError("Cannot read properties of undefined (reading 'orgId')");

    const response = problemResponse(error, 'req-3');

    expect(response.statusCode).toBe(500);
    expect(response.body).not.toMatch(/orgId|TypeError|at \w|\.ts:\d/);
    expect(parse(response.body)).toMatchObject({ code: 'INTERNAL', instance: 'req-3' });
  });

  it('sets Retry-After (whole seconds, at least 1) for 429 and 409', () => {
    const response = problemResponse(new RateLimitedError('slow down', 12.2), 'r');

    expect(response.headers?.['retry-after']).toBe('13');
    expect(parse(response.body).retryAfterSeconds).toBe(13);
    const conflict = problemResponse(new DomainError('SCHEDULE_CONFLICT', 'changing', { retryAfterSeconds: 1 }), 'r');
    expect(conflict.statusCode).toBe(409);
    expect(conflict.headers?.['retry-after']).toBe('1');
    expect(parse(conflict.body)).toMatchObject({ code: 'SCHEDULE_CONFLICT', title: 'Schedule conflict' });
  });

  it('carries Allow on 405', () => {
    expect(problemResponse(new MethodNotAllowedError('PUT', ['GET', 'POST']), 'r').headers?.allow).toBe('GET, POST');
  });

  it('keeps the detail of a 5xx domain error out of the body (C-4)', () => {
    const response = problemResponse(
      new DomainError('NETWORK_UNAVAILABLE', 'graph.facebook.com timed out', { retryAfterSeconds: 30 }),
      'r',
    );

    expect(response.statusCode).toBe(503);
    expect(response.body).not.toContain('graph.facebook.com');
    expect(response.headers?.['retry-after']).toBe('30');
  });

  it('maps every registry code to a 4xx or 5xx status', () => {
    for (const { status } of Object.values(PROBLEMS)) expect(status).toBeGreaterThanOrEqual(400);
  });
});
