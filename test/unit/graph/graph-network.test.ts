import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GraphMessagingNetwork } from '#shared/adapters/graph/graph-network';
import { NetworkError } from '#shared/ports/messaging-network';
import { eventually } from '#test/support/eventually';

interface Seen {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: unknown;
}

const TOKEN = 'EAAG-secret-access-token';
const channel = { phoneNumberId: '100000000000001', accessToken: TOKEN };
const GROUP_ID = 'Y2FwaV9ncm91cDoxMjAzNjMwMjg5NjQ1NzcwNTEy';
const TIMEOUT_MS = 300;

let server: Server;
let baseUrl: string;
let seen: Seen[];
let handler: (response: ServerResponse, request: Seen) => void;

function respond(status: number, body: unknown, headers: Record<string, string> = {}) {
  handler = (response) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
}

const graphError = (code: number, message: string) => ({
  error: { message, type: 'OAuthException', code, fbtrace_id: 'AbC123' },
});

async function failure(promise: Promise<unknown>): Promise<NetworkError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(NetworkError);
  return error as NetworkError;
}

const network = () => new GraphMessagingNetwork({ baseUrl: `${baseUrl}/v23.0`, timeoutMs: TIMEOUT_MS });

beforeAll(async () => {
  server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const url = new URL(request.url ?? '/', 'http://localhost');
    const entry = {
      method: request.method ?? '',
      path: url.pathname,
      query: url.searchParams,
      headers: request.headers,
      body: text ? JSON.parse(text) : undefined,
    };
    seen.push(entry);
    response.on('error', () => undefined);
    handler(response, entry);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  seen = [];
  respond(200, {});
});

describe('GraphMessagingNetwork requests', () => {
  it('creates a group with POST /{phoneNumberId}/groups, the bearer token and messaging_product', async () => {
    respond(200, { messaging_product: 'whatsapp', request_id: 'req-1' });

    const result = await network().createGroup(channel, {
      subject: 'VIP',
      description: 'Early access',
      joinApprovalMode: 'approval_required',
    });

    expect(result).toEqual({ networkRequestId: 'req-1' });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'POST', path: '/v23.0/100000000000001/groups' });
    expect(seen[0]?.headers).toMatchObject({ authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' });
    expect(seen[0]?.body).toEqual({
      messaging_product: 'whatsapp',
      subject: 'VIP',
      description: 'Early access',
      join_approval_mode: 'approval_required',
    });
  });

  it('lists every page through the after cursor, never the host in paging.next, with ISO creation times', async () => {
    handler = (response, request) => {
      const first = !request.query.get('after');
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify(
          first
            ? {
                data: { groups: [{ id: 'g1', subject: 'One', created_at: 1767225600 }] },
                paging: {
                  cursors: { before: 'b0', after: 'c1' },
                  next: 'https://evil.invalid/v23.0/x/groups?after=c1',
                },
              }
            : { data: { groups: [{ id: 'g2', subject: 'Two', created_at: '1767225660' }] }, paging: { cursors: {} } },
        ),
      );
    };

    const groups = await network().listGroups(channel);

    expect(groups).toEqual([
      { groupId: 'g1', subject: 'One', createdAt: '2026-01-01T00:00:00.000Z' },
      { groupId: 'g2', subject: 'Two', createdAt: '2026-01-01T00:01:00.000Z' },
    ]);
    expect(seen.map((request) => [request.method, request.path, request.query.toString()])).toEqual([
      ['GET', '/v23.0/100000000000001/groups', 'limit=1024'],
      ['GET', '/v23.0/100000000000001/groups', 'limit=1024&after=c1'],
    ]);
  });

  it('sends text to a group as recipient_type group and to a number as individual digits', async () => {
    respond(200, { messaging_product: 'whatsapp', messages: [{ id: 'wamid.1' }] });

    const toGroup = await network().sendText(channel, { groupId: GROUP_ID }, 'Hello group');
    const toNumber = await network().sendText(channel, { phoneNumber: '+49 151 12345678' }, 'Hello you');

    expect(toGroup).toEqual({ networkMessageId: 'wamid.1' });
    expect(toNumber).toEqual({ networkMessageId: 'wamid.1' });
    expect(seen.map((request) => [request.method, request.path])).toEqual([
      ['POST', '/v23.0/100000000000001/messages'],
      ['POST', '/v23.0/100000000000001/messages'],
    ]);
    expect(seen[0]?.body).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'group',
      to: GROUP_ID,
      type: 'text',
      text: { body: 'Hello group' },
    });
    expect(seen[1]?.body).toMatchObject({ recipient_type: 'individual', to: '4915112345678' });
  });

  it("sends the business's copy of Meta's group invite-link template, by its name and language, to a phone number", async () => {
    respond(200, { messaging_product: 'whatsapp', messages: [{ id: 'wamid.2', message_status: 'accepted' }] });

    const result = await network().sendGroupInvite(channel, '+4915112345678', GROUP_ID, {
      name: 'acme_group_invite',
      language: 'de',
    });

    expect(result).toEqual({ networkMessageId: 'wamid.2' });
    expect(seen[0]?.body).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '4915112345678',
      type: 'template',
      template: {
        name: 'acme_group_invite',
        language: { code: 'de' },
        components: [{ type: 'body', parameters: [{ type: 'group_id', group_id: GROUP_ID }] }],
      },
    });
  });

  it('deletes groups, removes participants and reads and resets invite links on the group id', async () => {
    handler = (response, request) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify(
          request.path.endsWith('/invite_link')
            ? { messaging_product: 'whatsapp', invite_link: `https://chat.whatsapp.com/${request.method}` }
            : { success: true },
        ),
      );
    };

    await network().deleteGroup(channel, GROUP_ID);
    await network().removeParticipants(channel, GROUP_ID, ['+4915112345678', 'DE.1234']);
    const link = await network().getInviteLink(channel, GROUP_ID);
    const reset = await network().resetInviteLink(channel, GROUP_ID);

    expect(link).toBe('https://chat.whatsapp.com/GET');
    expect(reset).toBe('https://chat.whatsapp.com/POST');
    expect(seen.map((request) => [request.method, request.path, request.body])).toEqual([
      ['DELETE', `/v23.0/${GROUP_ID}`, undefined],
      [
        'DELETE',
        `/v23.0/${GROUP_ID}/participants`,
        { messaging_product: 'whatsapp', participants: [{ user: '+4915112345678' }, { user: 'DE.1234' }] },
      ],
      ['GET', `/v23.0/${GROUP_ID}/invite_link`, undefined],
      ['POST', `/v23.0/${GROUP_ID}/invite_link`, { messaging_product: 'whatsapp' }],
    ]);
  });

  it.each([
    ['an empty body', ''],
    ['a non-JSON body', 'OK'],
    ['a JSON body that is no object', 'true'],
  ])(
    'takes a 2xx with %s from a settings update and a participant removal as success (CONTRACT §16)',
    async (_, body) => {
      handler = (response) => {
        response.writeHead(200, body ? { 'content-type': 'text/plain' } : {});
        response.end(body);
      };

      await network().updateGroupSettings(channel, GROUP_ID, { subject: 'New' });
      await network().removeParticipants(channel, GROUP_ID, ['+4915112345678']);
      const deletion = await failure(network().deleteGroup(channel, GROUP_ID));

      expect(seen.map((request) => [request.method, request.path])).toEqual([
        ['POST', `/v23.0/${GROUP_ID}`],
        ['DELETE', `/v23.0/${GROUP_ID}/participants`],
        ['DELETE', `/v23.0/${GROUP_ID}`],
      ]);
      // Calls whose answer Meta documents with a body still need it.
      expect(deletion.kind).toBe('ambiguous');
    },
  );

  it('maps approved and rejected join requests with their per-request failures', async () => {
    handler = (response, request) => {
      const failed = [
        { join_request_id: 'jr-2', errors: [{ code: 131213, message: 'Group join request does not exist' }] },
      ];
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify(
          request.method === 'POST'
            ? { messaging_product: 'whatsapp', approved_join_requests: ['jr-1'], failed_join_requests: failed }
            : { messaging_product: 'whatsapp', rejected_join_requests: ['jr-1'], failed_join_requests: failed },
        ),
      );
    };

    const approved = await network().approveJoinRequests(channel, GROUP_ID, ['jr-1', 'jr-2', 'jr-3']);
    const rejected = await network().rejectJoinRequests(channel, GROUP_ID, ['jr-1', 'jr-2']);

    expect(approved).toEqual({
      succeeded: ['jr-1'],
      failed: [
        { joinRequestId: 'jr-2', code: 131213, message: 'Group join request does not exist' },
        { joinRequestId: 'jr-3', message: 'no outcome reported by the network' },
      ],
    });
    expect(rejected.succeeded).toEqual(['jr-1']);
    expect(seen.map((request) => [request.method, request.path, request.body])).toEqual([
      [
        'POST',
        `/v23.0/${GROUP_ID}/join_requests`,
        { messaging_product: 'whatsapp', join_requests: ['jr-1', 'jr-2', 'jr-3'] },
      ],
      [
        'DELETE',
        `/v23.0/${GROUP_ID}/join_requests`,
        { messaging_product: 'whatsapp', join_requests: ['jr-1', 'jr-2'] },
      ],
    ]);
  });
});

describe('GraphMessagingNetwork failures', () => {
  const create = () => network().createGroup(channel, { subject: 'VIP', joinApprovalMode: 'approval_required' });

  it('is not-sent when the connection is refused', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));

    const error = await failure(
      new GraphMessagingNetwork({ baseUrl: `http://127.0.0.1:${port}/v23.0` }).createGroup(channel, {
        subject: 'VIP',
        joinApprovalMode: 'approval_required',
      }),
    );

    expect(error.kind).toBe('not-sent');
    expect(error.message).toContain('ECONNREFUSED');
  });

  it('is not-sent with Retry-After on HTTP 429', async () => {
    respond(429, graphError(130429, 'Rate limit hit'), { 'retry-after': '7' });

    const error = await failure(create());

    expect(error.kind).toBe('not-sent');
    expect(error.details).toEqual({ httpStatus: 429, code: 130429, retryAfterSeconds: 7 });
  });

  it.each([131208, 131056, 80007, 4])('is not-sent on rate-limit code %i whatever the HTTP status', async (code) => {
    respond(400, graphError(code, 'slow down'));

    const error = await failure(create());

    expect(error.kind).toBe('not-sent');
    expect(error.code).toBe(code);
  });

  it('is ambiguous on HTTP 500 for a POST, not-sent for a GET', async () => {
    respond(500, graphError(2, 'Service temporarily unavailable'));

    const post = await failure(create());
    const get = await failure(network().listGroups(channel));

    expect(post.kind).toBe('ambiguous');
    expect(post.details.httpStatus).toBe(500);
    expect(get.kind).toBe('not-sent');
  });

  it('is ambiguous after the timeout when a POST gets no answer, not-sent for a GET, and closes its sockets (H-4)', async () => {
    handler = () => undefined;

    const started = Date.now();
    const post = await failure(create());
    const elapsed = Date.now() - started;
    const get = await failure(network().getInviteLink(channel, GROUP_ID));

    expect(post.kind).toBe('ambiguous');
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
    expect(elapsed).toBeLessThan(TIMEOUT_MS + 700);
    expect(get.kind).toBe('not-sent');
    await eventually(async () => {
      const open = await new Promise<number>((resolve, reject) =>
        server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
      );
      expect(open).toBe(0);
    });
  });

  it('does not follow a 308 redirect: ambiguous for a POST, not-sent for a GET (H-6)', async () => {
    respond(308, '', { location: `${baseUrl}/v23.0/elsewhere` });

    const post = await failure(create());
    const get = await failure(network().getInviteLink(channel, GROUP_ID));

    expect(post.kind).toBe('ambiguous');
    expect(get.kind).toBe('not-sent');
    expect(seen.map((request) => request.path)).not.toContain('/v23.0/elsewhere');
    expect(seen).toHaveLength(2);
  });

  it('stops reading a 5 MB answer at 64 KiB and reports it unreadable (H-6)', async () => {
    handler = (response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 'a');
      response.write('{"request_id":"');
      for (let sent = 0; sent < 5 * 1024 * 1024; sent += chunk.length) response.write(chunk);
      response.end('"}');
    };

    const started = Date.now();
    const error = await failure(create());

    expect(error.kind).toBe('ambiguous');
    expect(error.message).toContain('unreadable');
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 700);
  });

  it('treats malformed JSON as unreadable: ambiguous for a POST, not-sent for a GET (H-6)', async () => {
    respond(200, '{"request_id": "req-1"');

    const post = await failure(create());
    const get = await failure(network().getInviteLink(channel, GROUP_ID));

    expect(post.kind).toBe('ambiguous');
    expect(get.kind).toBe('not-sent');
  });

  it("is rejected with Meta's code, message and HTTP status on a Graph error such as 131215", async () => {
    respond(400, graphError(131215, '(#131215) Number not eligible for Groups APIs'));

    const error = await failure(create());

    expect(error.kind).toBe('rejected');
    expect(error.code).toBe(131215);
    expect(error.message).toBe('(#131215) Number not eligible for Groups APIs');
    expect(error.details.httpStatus).toBe(400);
  });

  it('never puts the access token into an error', async () => {
    const errors: NetworkError[] = [];
    for (const [status, body] of [
      [401, graphError(190, 'Invalid OAuth access token')],
      [500, 'oops'],
      [200, '[]'],
    ] as const) {
      respond(status, body);
      errors.push(await failure(create()));
    }

    errors.push(await failure(network().listGroups({ ...channel, accessToken: `${TOKEN}\nX-Injected: 1` })));

    for (const error of errors) expect(JSON.stringify({ ...error, message: error.message })).not.toContain(TOKEN);
    expect(errors.map((error) => error.kind)).toEqual(['rejected', 'ambiguous', 'ambiguous', 'rejected']);
  });
});
