import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { readBody, send, toEvent } from '#infra/local/api-gateway-event';
import { DrainingServer } from '#infra/local/draining-server';
import { refuseLocalRoute } from '#infra/local/loopback-guard';
import type { FunctionRuntime } from './lambda-runtime.ts';

/** One route of the template's HTTP API, with what its integration invokes. */
export interface ApiRoute {
  routeKey: string;
  method: string;
  /** Path template, e.g. /api/wp-crm/groups/{orgId}; undefined for `$default`. */
  path?: string;
  fn: FunctionRuntime;
  /** Lambda's resource policy lets API Gateway invoke the function for this route. */
  permitted: boolean;
  /** Integration timeout. */
  timeoutMs: number;
  throttle?: { rateLimit: number; burstLimit: number };
}

export interface HttpApiOptions {
  apiId: string;
  routes: ApiRoute[];
  /**
   * The stage's default route throttling (DefaultRouteSettings): the limits of each route that has none of its own,
   * in that route's own bucket, as API Gateway applies them (the stage's default is per route, not one bucket that
   * all routes share; https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-throttling.html).
   */
  throttle?: { rateLimit: number; burstLimit: number };
  /** Extra local endpoints served before the routes (e.g. /_local/iam). */
  localRoutes?: Record<string, (request: IncomingMessage) => Promise<unknown> | unknown>;
  /**
   * The bearer token the local routes require (CONTRACT §21: also loopback `Host`, no `Origin`); none: they answer no
   * one.
   */
  localRoutesToken?: string;
  /** Called when API Gateway could not invoke a route's function for want of a permission. */
  onForbiddenInvoke?: (route: ApiRoute) => void;
}

const message = (statusCode: number, text: string): APIGatewayProxyStructuredResultV2 => ({
  statusCode,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ message: text }),
});

/**
 * The template's HTTP API (payload format 2.0): routes chosen as API Gateway chooses them (literal segments before
 * path variables, a method before ANY, `$default` last), throttling with a token bucket per route, the
 * integration timeout, and API Gateway's own error answers when the function fails or may not be invoked.
 */
export class TemplateHttpApi {
  readonly #server: DrainingServer;
  #buckets = new Map<string, TokenBucket>();

  constructor(private readonly options: HttpApiOptions) {
    this.#server = new DrainingServer(
      (request, response) => this.#handle(request, response),
      (response) => send(response, message(500, 'Internal Server Error')),
    );
  }

  listen(port: number): Promise<number> {
    return this.#server.listen(port);
  }

  /** Stops accepting connections, lets the requests being handled finish, then closes every connection. */
  close(): Promise<void> {
    return this.#server.close();
  }

  async #handle(request: IncomingMessage, response: ServerResponse) {
    const requestId = randomUUID();
    const url = new URL(request.url ?? '/', 'http://localhost');
    const local = this.options.localRoutes?.[url.pathname];
    if (local && request.method === 'GET') {
      const refused = refuseLocalRoute(request, this.options.localRoutesToken);
      if (refused) return send(response, message(refused.status, refused.message));
      response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      return void response.end(JSON.stringify(await local(request)));
    }
    const body = await readBody(request);
    response.setHeader('apigw-requestid', requestId);
    if (body === 'too-large') return send(response, message(413, 'Request Entity Too Large'));
    const match = matchRoute(this.options.routes, request.method ?? 'GET', url.pathname);
    if (!match) return send(response, message(404, 'Not Found'));
    const { route, params } = match;
    if (!this.#take(route.routeKey, route.throttle ?? this.options.throttle)) {
      return send(response, message(429, 'Too Many Requests'));
    }
    if (!route.permitted) {
      this.options.onForbiddenInvoke?.(route);
      return send(response, message(500, 'Internal Server Error'));
    }
    const event = toEvent(request, url, body, requestId, { routeKey: route.routeKey, params }, this.options.apiId);
    const outcome = await withTimeout(route.fn.invoke(event), route.timeoutMs);
    if (outcome === 'timeout') return send(response, message(503, 'Service Unavailable'));
    if (!outcome.ok) return send(response, message(500, 'Internal Server Error'));
    send(response, toResult(outcome.payload));
  }

  #take(key: string, limits: { rateLimit: number; burstLimit: number } | undefined): boolean {
    if (!limits) return true;
    let bucket = this.#buckets.get(key);
    if (!bucket) {
      bucket = new TokenBucket(limits.rateLimit, limits.burstLimit);
      this.#buckets.set(key, bucket);
    }
    return bucket.take();
  }
}

/** Payload format 2.0: a result with `statusCode` is used as is; any other JSON value is a 200 JSON body. */
function toResult(payload: string): APIGatewayProxyStructuredResultV2 {
  const result = JSON.parse(payload) as unknown;
  if (result && typeof result === 'object' && 'statusCode' in result)
    return result as APIGatewayProxyStructuredResultV2;
  return {
    statusCode: 200,
    headers: { 'content-type': 'application/json' },
    body: typeof result === 'string' ? result : payload,
  };
}

/**
 * API Gateway's route selection for HTTP APIs: the route whose segments match most literally wins (segment by
 * segment, a literal beats `{var}`, which beats `{proxy+}`); a route for the method beats one for ANY; `$default`
 * catches the rest.
 */
export function matchRoute(
  routes: readonly ApiRoute[],
  method: string,
  path: string,
): { route: ApiRoute; params: Record<string, string> } | undefined {
  const segments = path.split('/');
  let best: { route: ApiRoute; params: Record<string, string>; score: number[] } | undefined;
  for (const route of routes) {
    if (!route.path || (route.method !== method && route.method !== 'ANY')) continue;
    const pattern = route.path.split('/');
    const params: Record<string, string> = {};
    const score: number[] = [];
    let matched = true;
    for (let index = 0; index < pattern.length; index++) {
      const part = pattern[index]!;
      const greedy = /^\{(\w+)\+\}$/.exec(part);
      if (greedy) {
        const rest = segments.slice(index).join('/');
        if (rest.length === 0) matched = false;
        params[greedy[1]!] = decode(rest);
        score.push(0);
        break;
      }
      const segment = segments[index];
      if (segment === undefined) {
        matched = false;
        break;
      }
      const variable = /^\{(\w+)\}$/.exec(part);
      if (variable) {
        if (segment.length === 0) matched = false;
        params[variable[1]!] = decode(segment);
        score.push(1);
      } else if (part === segment) {
        score.push(2);
      } else {
        matched = false;
      }
      if (!matched) break;
      if (index === pattern.length - 1 && segments.length !== pattern.length) matched = false;
    }
    if (!matched) continue;
    score.push(route.method === method ? 1 : 0);
    if (!best || compare(score, best.score) > 0) best = { route, params, score };
  }
  if (best) return { route: best.route, params: best.params };
  const fallback = routes.find((route) => route.routeKey === '$default');
  return fallback ? { route: fallback, params: {} } : undefined;
}

function compare(a: number[], b: number[]): number {
  for (let index = 0; index < Math.max(a.length, b.length); index++) {
    const difference = (a[index] ?? -1) - (b[index] ?? -1);
    if (difference !== 0) return difference;
  }
  return 0;
}

const decode = (value: string) => {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
};

async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** API Gateway's throttling: a bucket of `burst` tokens refilled at `rate` per second. */
class TokenBucket {
  #tokens: number;
  #at = Date.now();

  constructor(
    private readonly rate: number,
    private readonly burst: number,
  ) {
    this.#tokens = burst;
  }

  take(): boolean {
    const now = Date.now();
    this.#tokens = Math.min(this.burst, this.#tokens + ((now - this.#at) / 1000) * this.rate);
    this.#at = now;
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }
}
