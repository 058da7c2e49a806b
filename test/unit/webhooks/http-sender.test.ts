import { createServer as createHttpServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, isIP, Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { MAX_RESPONSE_BYTES, parseRetryAfter, WebhookSender } from '#shared/adapters/webhooks/http-sender';
import type { LookupAll } from '#shared/adapters/webhooks/resolver';
import { generateWebhookSecret, webhookHeaders } from '#shared/domain/webhooks/signature';
import { URL_REFUSALS, WebhookUrlNotAllowedError } from '#shared/domain/webhooks/ssrf-policy';
import { problemResponse } from '#shared/http/problem';

interface Seen {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A loopback HTTP receiver whose answer each test sets; it records requests and raw connections. */
async function startReceiver() {
  const receiver = {
    seen: [] as Seen[],
    connections: 0,
    url: '',
    port: 0,
    answer: (response: ServerResponse): void => void response.end('ok'),
  };
  const server = createHttpServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    receiver.seen.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, body });
    response.on('error', () => {});
    receiver.answer(response);
  });
  server.on('connection', () => receiver.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}`;
  const close = () => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return Object.assign(receiver, { close });
}

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** A DNS stand-in: each name answers from its list of answers in turn (the last one repeats). */
function fakeDns(table: Record<string, string[][]>) {
  const calls: string[] = [];
  const lookup: LookupAll = (hostname, _options, callback) => {
    calls.push(hostname);
    const answers = table[hostname];
    const addresses = answers && (answers.length > 1 ? answers.shift() : answers[0]);
    setImmediate(() =>
      addresses
        ? callback(
            null,
            addresses.map((address) => ({ address, family: isIP(address) })),
          )
        : callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []),
    );
  };
  return { lookup, calls };
}

const PUBLIC_IP = '93.184.215.14';
const body = JSON.stringify({ type: 'report.completed', report_id: 'rpt_01J', note: 'données ✓' });
const sign = (secret: string) =>
  webhookHeaders({ id: 'evt_01JX', timestamp: Math.floor(Date.now() / 1000), body }, [secret]);

let receiver: Receiver;
let second: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
  second = await startReceiver();
});

afterAll(async () => {
  await Promise.all([receiver.close(), second.close()]);
});

beforeEach(() => {
  for (const target of [receiver, second]) {
    target.seen = [];
    target.connections = 0;
    target.answer = (response) => void response.end('ok');
  }
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('WebhookSender.validate', () => {
  const { lookup } = fakeDns({
    'hooks.example.com': [[PUBLIC_IP, '2606:4700:4700::1111']],
    'metadata.example.com': [['169.254.169.254']],
    'mixed.example.com': [[PUBLIC_IP, '10.0.0.1']],
    'v6.example.com': [['fd00:ec2::254']],
    'mapped.example.com': [['::ffff:127.0.0.1']],
    'localhost.': [['127.0.0.1', '::1']],
    localhost: [['127.0.0.1', '::1']],
  });
  const production = new WebhookSender({ allowPrivate: false, lookup });

  const j5 = [
    'http://169.254.169.254/latest/meta-data/',
    'http://127.0.0.1',
    'http://[::1]/',
    'http://10.0.0.1/',
    'http://0x7f000001/',
    'http://2130706433/',
    'http://017700000001/',
    'http://[::ffff:127.0.0.1]/',
    'http://localhost./',
    'file:///etc/passwd',
    'gopher://x',
  ];

  it.each([...j5, ...j5.map((url) => url.replace(/^http:/, 'https:'))])(
    'refuses %s with 422 WEBHOOK_URL_NOT_ALLOWED',
    async (url) => {
      const error = await production.validate(url).catch((reason: unknown) => reason);

      expect(error).toBeInstanceOf(WebhookUrlNotAllowedError);
      expect(problemResponse(error, 'req-1').statusCode).toBe(422);
    },
  );

  it.each([
    ['https://metadata.example.com/'],
    ['https://mixed.example.com/'],
    ['https://v6.example.com/'],
    ['https://mapped.example.com/'],
  ])('refuses %s, whose name resolves to a forbidden address, without naming the address', async (url) => {
    const error = await production.validate(url).catch((reason: unknown) => reason);

    expect(error).toMatchObject({ code: 'WEBHOOK_URL_NOT_ALLOWED', reason: URL_REFUSALS.address });
    const problem = problemResponse(error, 'req-1');
    expect(problem.statusCode).toBe(422);
    expect(problem.body).not.toMatch(/169\.254|10\.0\.0\.1|fd00|127\.0\.0\.1/);
  });

  it('refuses a name that does not resolve', async () => {
    const error = await production.validate('https://nowhere.example.com/').catch((reason: unknown) => reason);

    expect(error).toMatchObject({ code: 'WEBHOOK_URL_NOT_ALLOWED', reason: URL_REFUSALS.unresolvable });
  });

  it('accepts a public https URL and returns it parsed', async () => {
    const url = await production.validate('https://hooks.example.com/in?org=1');

    expect(url.href).toBe('https://hooks.example.com/in?org=1');
  });

  it('accepts loopback http targets when private targets are allowed', async () => {
    const local = new WebhookSender({ allowPrivate: true, lookup });

    await expect(local.validate(`${receiver.url}/hook`)).resolves.toBeInstanceOf(URL);
    await expect(local.validate('http://localhost./')).resolves.toBeInstanceOf(URL);
  });
});

describe('WebhookSender.send', () => {
  it('delivers the exact body bytes and the signed headers', async () => {
    const secret = generateWebhookSecret();
    const headers = sign(secret);
    const sender = new WebhookSender({ allowPrivate: true });

    const result = await sender.send(`${receiver.url}/hooks/in?x=1`, { headers, body });

    expect(result).toMatchObject({ ok: true, statusCode: 200, gone: false, responseBody: 'ok' });
    expect(result.error).toBeUndefined();
    const [request] = receiver.seen;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/hooks/in?x=1');
    expect(request?.body.equals(Buffer.from(body, 'utf8'))).toBe(true);
    expect(request?.headers).toMatchObject({ ...headers, 'content-length': String(Buffer.byteLength(body)) });
    expect(() => new Webhook(secret).verify(request!.body.toString('utf8'), headers)).not.toThrow();
  });

  it('connects to the address it checked while keeping the name in the Host header', async () => {
    const dns = fakeDns({ 'receiver.test': [['127.0.0.1']] });
    const sender = new WebhookSender({ allowPrivate: true, lookup: dns.lookup });

    const result = await sender.send(`http://receiver.test:${receiver.port}/hook`, { headers: {}, body });

    expect(result.ok).toBe(true);
    expect(receiver.seen[0]?.headers.host).toBe(`receiver.test:${receiver.port}`);
    expect(dns.calls).toEqual(['receiver.test']);
  });

  it('sends TLS to the pinned address with the host name as SNI', async () => {
    let hello: Buffer = Buffer.alloc(0);
    const tls = createTcpServer((socket) =>
      socket.once('data', (chunk: Buffer) => {
        hello = chunk;
        socket.destroy();
      }),
    );
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
    const { port } = tls.address() as AddressInfo;
    const dns = fakeDns({ 'receiver.test': [['127.0.0.1']] });
    const sender = new WebhookSender({ allowPrivate: true, lookup: dns.lookup });

    const result = await sender.send(`https://receiver.test:${port}/hook`, { headers: {}, body });
    await new Promise((resolve) => tls.close(resolve));

    expect(hello.toString('latin1')).toContain('receiver.test');
    expect(result).toMatchObject({ ok: false, error: 'connection_reset' });
  });

  it('refuses at send a name that now resolves to loopback (DNS rebinding), without connecting (J-6)', async () => {
    const dns = fakeDns({ 'rebind.example.com': [[PUBLIC_IP], ['127.0.0.1']] });
    const sender = new WebhookSender({ allowPrivate: false, lookup: dns.lookup });
    await sender.validate('https://rebind.example.com/hook');
    const connect = vi.spyOn(Socket.prototype, 'connect');

    const result = await sender.send('https://rebind.example.com/hook', {
      headers: sign(generateWebhookSecret()),
      body,
    });

    expect(result).toMatchObject({ ok: false, gone: false, error: 'url_not_allowed' });
    expect(result.statusCode).toBeUndefined();
    expect(connect).not.toHaveBeenCalled();
    expect(dns.calls).toEqual(['rebind.example.com', 'rebind.example.com']);
  });

  it('refuses a URL the policy refuses, even when private targets are allowed', async () => {
    const sender = new WebhookSender({ allowPrivate: true });

    const result = await sender.send('file:///etc/passwd', { headers: {}, body });

    expect(result).toMatchObject({ ok: false, error: 'url_not_allowed' });
  });

  it('does not follow a 302, to the metadata address or anywhere else', async () => {
    receiver.answer = (response) => {
      response.writeHead(302, { location: `${second.url}/latest/meta-data/` });
      response.end();
    };
    const sender = new WebhookSender({ allowPrivate: true });

    const result = await sender.send(`${receiver.url}/hook`, { headers: {}, body });

    expect(result).toMatchObject({ ok: false, statusCode: 302, gone: false, error: 'redirect_not_followed' });
    expect(second.connections).toBe(0);
    expect(second.seen).toHaveLength(0);
  });

  it('reports 410 as gone', async () => {
    receiver.answer = (response) => {
      response.writeHead(410);
      response.end();
    };
    const sender = new WebhookSender({ allowPrivate: true });

    const result = await sender.send(`${receiver.url}/hook`, { headers: {}, body });

    expect(result).toMatchObject({ ok: false, statusCode: 410, gone: true });
  });

  it('reads Retry-After in seconds on 429 and as an HTTP date on 503, and ignores it on 500', async () => {
    const sender = new WebhookSender({ allowPrivate: true });
    const answers = [
      [429, '120'],
      [503, new Date(Date.now() + 300_000).toUTCString()],
      [500, '120'],
    ] as const;

    const results = [];
    for (const [status, retryAfter] of answers) {
      receiver.answer = (response) => {
        response.writeHead(status, { 'retry-after': retryAfter });
        response.end();
      };
      results.push(await sender.send(`${receiver.url}/hook`, { headers: {}, body }));
    }

    expect(results[0]).toMatchObject({ ok: false, statusCode: 429, retryAfterSeconds: 120 });
    expect(results[1]?.retryAfterSeconds).toBeGreaterThanOrEqual(298);
    expect(results[1]?.retryAfterSeconds).toBeLessThanOrEqual(300);
    expect(results[2]).toMatchObject({ ok: false, statusCode: 500 });
    expect(results[2]?.retryAfterSeconds).toBeUndefined();
  });

  it('gives up with error timeout when the receiver is slower than the timeout', async () => {
    receiver.answer = () => {};
    const sender = new WebhookSender({ allowPrivate: true, timeoutMs: 200 });

    const result = await sender.send(`${receiver.url}/hook`, { headers: {}, body });

    expect(result).toMatchObject({ ok: false, gone: false, error: 'timeout' });
    expect(result.statusCode).toBeUndefined();
    expect(result.latencyMs).toBeGreaterThanOrEqual(190);
    expect(result.latencyMs).toBeLessThan(2_000);
  });

  it('keeps the status when the body is still arriving at the timeout', async () => {
    receiver.answer = (response) => {
      response.writeHead(200);
      response.write('partial');
    };
    const sender = new WebhookSender({ allowPrivate: true, timeoutMs: 200 });

    const result = await sender.send(`${receiver.url}/hook`, { headers: {}, body });

    expect(result).toMatchObject({ ok: true, statusCode: 200, responseBody: 'partial' });
    expect(result.error).toBeUndefined();
  });

  it('reads 4 KiB of a 5 MB answer and drops the rest', async () => {
    receiver.answer = (response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end(Buffer.alloc(5 * 1024 * 1024, 'x'));
    };
    const sender = new WebhookSender({ allowPrivate: true });

    const result = await sender.send(`${receiver.url}/hook`, { headers: {}, body });

    expect(result).toMatchObject({ ok: true, statusCode: 200 });
    expect(result.responseBody).toHaveLength(MAX_RESPONSE_BYTES);
  });

  it('reports a refused connection', async () => {
    const closed = await startReceiver();
    await closed.close();
    const sender = new WebhookSender({ allowPrivate: true });

    const result = await sender.send(`${closed.url}/hook`, { headers: {}, body });

    expect(result).toMatchObject({ ok: false, error: 'connection_refused' });
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates, and ignores nonsense', () => {
    const now = Date.parse('2026-11-22T10:00:00Z');

    expect(parseRetryAfter('120', now)).toBe(120);
    expect(parseRetryAfter('Sun, 22 Nov 2026 10:02:00 GMT', now)).toBe(120);
    expect(parseRetryAfter('Sun, 22 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});
