import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type ApiRoute, type HttpApiOptions, TemplateHttpApi } from '#infra/cdk-local/http-api';
import type { FunctionRuntime, InvokeOutcome } from '#infra/cdk-local/lambda-runtime';

type Invoke = (event: APIGatewayProxyEventV2) => Promise<InvokeOutcome>;

const succeeded = (result: unknown): InvokeOutcome => ({
  ok: true,
  payload: JSON.stringify(result),
  durationMs: 1,
  coldStart: false,
});

const stubFunction = (invoke: Invoke) =>
  ({
    def: { logicalId: 'GroupsFn', arn: 'arn:aws:lambda:eu-west-1:000000000000:function:groups' },
    invoke: vi.fn(invoke),
  }) as unknown as FunctionRuntime & { invoke: ReturnType<typeof vi.fn<Invoke>> };

const routeTo = (routeKey: string, fn: FunctionRuntime, overrides: Partial<ApiRoute> = {}): ApiRoute => {
  const [method, path] = routeKey === '$default' ? ['ANY', undefined] : routeKey.split(' ');
  return { routeKey, method: method!, path, fn, permitted: true, timeoutMs: 5_000, ...overrides };
};

const deferred = <T>() => {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
};

const running: TemplateHttpApi[] = [];

const startApi = async (options: Omit<HttpApiOptions, 'apiId'>) => {
  const api = new TemplateHttpApi({ apiId: 'abc123', ...options });
  running.push(api);
  const port = await api.listen(0);
  return { api, origin: `http://127.0.0.1:${port}` };
};

afterEach(async () => {
  await Promise.all(running.splice(0).map((api) => api.close()));
});

describe('TemplateHttpApi', () => {
  it('passes the matched route and decoded path parameters to the function', async () => {
    const fn = stubFunction(async () => succeeded({ ok: true }));
    const { origin } = await startApi({ routes: [routeTo('GET /groups/{orgId}', fn)] });

    await fetch(`${origin}/groups/org%201?page=2`);

    const event = fn.invoke.mock.calls[0]![0];
    expect(event).toMatchObject({
      version: '2.0',
      routeKey: 'GET /groups/{orgId}',
      rawPath: '/groups/org%201',
      pathParameters: { orgId: 'org 1' },
      queryStringParameters: { page: '2' },
    });
  });

  it("gives the function the template API's id in the request context", async () => {
    const fn = stubFunction(async () => succeeded({}));
    const { origin } = await startApi({ routes: [routeTo('GET /groups', fn)] });

    await fetch(`${origin}/groups`);

    expect(fn.invoke.mock.calls[0]![0].requestContext).toMatchObject({ apiId: 'abc123', stage: '$default' });
  });

  it('passes a payload format 2.0 result through: status, headers and a base64 body', async () => {
    const fn = stubFunction(async () =>
      succeeded({
        statusCode: 201,
        headers: { 'content-type': 'application/octet-stream', 'x-request': 'r1' },
        body: Buffer.from([0, 1, 2, 255]).toString('base64'),
        isBase64Encoded: true,
      }),
    );
    const { origin } = await startApi({ routes: [routeTo('POST /files', fn)] });

    const response = await fetch(`${origin}/files`, { method: 'POST', body: 'x' });

    expect(response.status).toBe(201);
    expect(response.headers.get('x-request')).toBe('r1');
    expect(response.headers.get('apigw-requestid')).toBeTruthy();
    expect(Buffer.from(await response.arrayBuffer())).toEqual(Buffer.from([0, 1, 2, 255]));
  });

  it('answers a plain JSON result as a 200 JSON body', async () => {
    const fn = stubFunction(async () => succeeded({ groups: [1, 2] }));
    const { origin } = await startApi({ routes: [routeTo('GET /groups', fn)] });

    const response = await fetch(`${origin}/groups`);

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual({ groups: [1, 2] });
  });

  it("throttles each route without its own limits by the stage's default, in a bucket of its own (CONTRACT §21)", async () => {
    const fn = stubFunction(async () => succeeded({}));
    const { origin } = await startApi({
      routes: [routeTo('GET /groups', fn), routeTo('POST /token', fn), routeTo('$default', fn)],
      throttle: { rateLimit: 0.001, burstLimit: 2 },
    });

    // Junk on unknown paths uses up the $default route's bucket, and nothing else.
    const junk = await Promise.all([1, 2, 3, 4].map(() => fetch(`${origin}/no/such/path`)));
    const token = await fetch(`${origin}/token`, { method: 'POST' });
    const groups = await fetch(`${origin}/groups`);

    expect(junk.map((response) => response.status)).toEqual([200, 200, 429, 429]);
    expect([token.status, groups.status]).toEqual([200, 200]);
  });

  it('answers 429 Too Many Requests beyond the stage burst, without invoking the function', async () => {
    const fn = stubFunction(async () => succeeded({}));
    const { origin } = await startApi({
      routes: [routeTo('GET /groups', fn)],
      throttle: { rateLimit: 0.001, burstLimit: 2 },
    });

    const first = await fetch(`${origin}/groups`);
    const second = await fetch(`${origin}/groups`);
    const third = await fetch(`${origin}/groups`);

    expect([first.status, second.status, third.status]).toEqual([200, 200, 429]);
    expect(await third.json()).toEqual({ message: 'Too Many Requests' });
    expect(fn.invoke).toHaveBeenCalledTimes(2);
  });

  it("throttles a route by its own limits without touching other routes'", async () => {
    const fn = stubFunction(async () => succeeded({}));
    const { origin } = await startApi({
      routes: [
        routeTo('POST /groups', fn, { throttle: { rateLimit: 0.001, burstLimit: 1 } }),
        routeTo('GET /groups', fn),
      ],
    });

    const first = await fetch(`${origin}/groups`, { method: 'POST' });
    const second = await fetch(`${origin}/groups`, { method: 'POST' });
    const other = await fetch(`${origin}/groups`);

    expect([first.status, second.status, other.status]).toEqual([200, 429, 200]);
  });

  it("answers 500 Internal Server Error when the function's invocation fails", async () => {
    const fn = stubFunction(async () => ({
      ok: false,
      error: { errorType: 'Error', errorMessage: 'boom' },
      durationMs: 1,
      coldStart: false,
    }));
    const { origin } = await startApi({ routes: [routeTo('GET /groups', fn)] });

    const response = await fetch(`${origin}/groups`);

    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ message: 'Internal Server Error' });
  });

  it('answers 500 Internal Server Error when invoking the function throws', async () => {
    const fn = stubFunction(async () => {
      throw new Error('GroupsFn is shut down');
    });
    const { origin } = await startApi({ routes: [routeTo('GET /groups', fn)] });

    const response = await fetch(`${origin}/groups`);

    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ message: 'Internal Server Error' });
  });

  it('answers 500 for a route API Gateway may not invoke, reporting it and not invoking the function', async () => {
    const fn = stubFunction(async () => succeeded({}));
    const route = routeTo('GET /groups', fn, { permitted: false });
    const onForbiddenInvoke = vi.fn();
    const { origin } = await startApi({ routes: [route], onForbiddenInvoke });

    const response = await fetch(`${origin}/groups`);

    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ message: 'Internal Server Error' });
    expect(onForbiddenInvoke).toHaveBeenCalledWith(route);
    expect(fn.invoke).not.toHaveBeenCalled();
  });

  it('answers 503 Service Unavailable when the integration times out', async () => {
    const late = deferred<InvokeOutcome>();
    const fn = stubFunction(() => late.promise);
    const { origin } = await startApi({ routes: [routeTo('GET /groups', fn, { timeoutMs: 50 })] });

    const response = await fetch(`${origin}/groups`);
    late.resolve(succeeded({}));

    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ message: 'Service Unavailable' });
  });

  it('answers 404 Not Found when no route matches and there is no $default route', async () => {
    const fn = stubFunction(async () => succeeded({}));
    const { origin } = await startApi({ routes: [routeTo('GET /groups', fn)] });

    const response = await fetch(`${origin}/channels`);

    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ message: 'Not Found' });
    expect(fn.invoke).not.toHaveBeenCalled();
  });

  it('sends what no route matches to the $default route', async () => {
    const fn = stubFunction(async () => succeeded({ caught: true }));
    const { origin } = await startApi({ routes: [routeTo('$default', fn)] });

    const response = await fetch(`${origin}/anything/at/all`, { method: 'DELETE' });

    expect(await response.json()).toEqual({ caught: true });
    expect(fn.invoke.mock.calls[0]![0]).toMatchObject({ routeKey: '$default', rawPath: '/anything/at/all' });
  });

  it('serves its local routes before the template routes', async () => {
    const fn = stubFunction(async () => succeeded({}));
    const { origin } = await startApi({
      routes: [routeTo('$default', fn)],
      localRoutes: { '/_local/iam': () => ({ functions: {} }) },
      localRoutesToken: 'local-token',
    });

    const response = await fetch(`${origin}/_local/iam`, { headers: { authorization: 'Bearer local-token' } });

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ functions: {} });
    expect(fn.invoke).not.toHaveBeenCalled();
  });

  it('stops accepting connections on close but answers the request in flight before closing', async () => {
    const release = deferred<InvokeOutcome>();
    const fn = stubFunction(() => release.promise);
    const { api, origin } = await startApi({ routes: [routeTo('GET /groups', fn)] });
    const inFlight = fetch(`${origin}/groups`);
    await expect.poll(() => fn.invoke.mock.calls.length).toBe(1);

    const closing = api.close();
    await expect
      .poll(() =>
        fetch(`${origin}/groups`).then(
          () => 'accepted',
          () => 'refused',
        ),
      )
      .toBe('refused');
    release.resolve(succeeded({ late: true }));

    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ late: true });
    await closing;
  });
});
