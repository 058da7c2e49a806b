import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

/**
 * Checks HTTP exchanges against openapi.json (CONTRACT §19) with Ajv's JSON Schema 2020-12 validator: the
 * operation, path, query and header parameters, the request body, the status, the content type, the response
 * headers and the body. Strict: an object schema that does not say otherwise (`additionalProperties`) admits only
 * the properties it declares, so an undeclared property in a request or an answer is a violation.
 */

type Json = Record<string, unknown>;
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: Json;
}
interface MediaType {
  schema?: Json;
}
interface Response {
  headers?: Record<string, { required?: boolean; schema: Json }>;
  content?: Record<string, MediaType>;
}
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, MediaType> };
  responses: Record<string, Response>;
}

export interface Exchange {
  method: string;
  /** The path and query as sent, e.g. `/api/wp-crm/groups/o?limit=5`. */
  url: string;
  requestHeaders: Record<string, string>;
  requestBody?: string;
  status: number;
  responseHeaders: Record<string, string>;
  responseBody: string;
  /** fetch followed a redirect: `status` and the rest are the target's; only a declared 3XX can be checked. */
  redirected?: boolean;
}

export interface Verdict {
  /** `undefined` for a path and method the document has no operation for (e.g. a probe of an unknown route). */
  operationId: string | undefined;
  status: number;
  /** The request breaks the document (a test of the service's refusals): the answer must then be a 4XX. */
  requestInvalid: string[];
  violations: string[];
}

const addFormats = (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Replaces `#/components/...` references by what they name, and closes every object that does not say it is open. */
function strict(node: unknown, root: Json): unknown {
  if (Array.isArray(node)) return node.map((item) => strict(item, root));
  if (!node || typeof node !== 'object') return node;
  const object = node as Json;
  if (typeof object.$ref === 'string' && object.$ref.startsWith('#/')) {
    const target = object.$ref
      .slice(2)
      .split('/')
      .reduce<unknown>((at, key) => (at as Json)[key.replaceAll('~1', '/').replaceAll('~0', '~')], root);
    return strict(target, root);
  }
  const out: Json = {};
  for (const [key, value] of Object.entries(object)) {
    // `example` and `examples` are data, not schemas.
    out[key] = key === 'example' || key === 'examples' ? value : strict(value, root);
  }
  if (out.type === 'object' && out.properties && !('additionalProperties' in out)) out.additionalProperties = false;
  return out;
}

const mediaTypeOf = (value: string | undefined) => value?.split(';')[0]?.trim().toLowerCase() ?? '';

export class OpenApiValidator {
  readonly #ajv = new Ajv2020({ allErrors: true, strict: false });
  readonly #compiled = new WeakMap<object, ValidateFunction>();
  readonly #closed = new Map<string, Json>();
  readonly #routes: { method: string; template: string; pattern: RegExp; params: number; operation: Operation }[] = [];
  /** The document's `webhooks`: the requests the service sends to subscribed URLs, by event type. */
  readonly #webhooks: Record<string, { post: Operation }>;
  /** The operations and the statuses the document declares, `operationId → statuses`. */
  readonly declared = new Map<string, string[]>();

  constructor(document: Json) {
    addFormats(this.#ajv);
    this.#webhooks = strict(document.webhooks ?? {}, document) as Record<string, { post: Operation }>;
    const paths = strict(document.paths, document) as Record<string, Record<string, Operation>>;
    for (const [template, item] of Object.entries(paths)) {
      for (const method of METHODS) {
        const operation = item[method];
        if (!operation) continue;
        const source = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{\w+\\?\}/g, '([^/]+)');
        this.#routes.push({
          method: method.toUpperCase(),
          template,
          pattern: new RegExp(`^${source.replaceAll('{', '\\{')}$`),
          params: (template.match(/\{/g) ?? []).length,
          operation,
        });
        this.declared.set(operation.operationId, Object.keys(operation.responses));
      }
    }
    this.#routes.sort((a, b) => a.params - b.params);
  }

  /** The schema's validator, compiled once. */
  #validator(schema: Json): ValidateFunction {
    let validate = this.#compiled.get(schema);
    if (!validate) {
      validate = this.#ajv.compile(schema);
      this.#compiled.set(schema, validate);
    }
    return validate;
  }

  #check(schema: Json | undefined, value: unknown, where: string): string[] {
    if (!schema) return [];
    const validate = this.#validator(schema);
    if (validate(value)) return [];
    return (validate.errors ?? []).map((error) => {
      const extra = (error.params as { additionalProperty?: string }).additionalProperty;
      return `${where}${error.instancePath} ${error.message}${extra ? ` (${extra})` : ''}`;
    });
  }

  /** A parameter arrives as text: read it as what its schema says it is. */
  #parameterValue(schema: Json, raw: string): unknown {
    const types = ([] as unknown[]).concat(schema.type ?? []);
    if ((types.includes('integer') || types.includes('number')) && /^-?\d+(\.\d+)?$/.test(raw)) return Number(raw);
    if (types.includes('boolean') && (raw === 'true' || raw === 'false')) return raw === 'true';
    return raw;
  }

  /** The operation for a method and path, with the path's parameters. */
  match(method: string, path: string) {
    for (const route of this.#routes) {
      if (route.method !== method.toUpperCase()) continue;
      const found = route.pattern.exec(path);
      if (!found) continue;
      const names = [...route.template.matchAll(/\{(\w+)\}/g)].map(([, name]) => name ?? '');
      const params = Object.fromEntries(names.map((name, index) => [name, decodePathSegment(found[index + 1] ?? '')]));
      return { operation: route.operation, params };
    }
    return undefined;
  }

  validate(exchange: Exchange): Verdict {
    const url = new URL(exchange.url, 'http://validator.invalid');
    const matched = this.match(exchange.method, url.pathname);
    const verdict: Verdict = {
      operationId: matched?.operation.operationId,
      status: exchange.status,
      requestInvalid: [],
      violations: [],
    };
    // The HTTP front refuses a header section over its limit before any route is known (Node's parser locally, API
    // Gateway on AWS): not an operation's answer, so not in the document (shared/openapi/document.ts), and no body.
    if (exchange.status === 431) {
      if (exchange.responseBody.length > 0) verdict.violations.push('431 (the front refusing the headers) has a body');
      return verdict;
    }
    if (!matched) {
      if (exchange.status !== 404 && exchange.status !== 405 && !this.#toPageWithoutSlash(exchange, url.pathname)) {
        verdict.violations.push(
          `${exchange.method} ${url.pathname}: no such operation, yet answered ${exchange.status}`,
        );
      }
      return verdict;
    }
    const { operation, params } = matched;
    verdict.requestInvalid = this.#requestProblems(operation, params, url, exchange);
    verdict.violations = this.#responseProblems(operation, exchange);
    if (verdict.requestInvalid.length > 0 && (exchange.status < 400 || exchange.status >= 500)) {
      verdict.violations.push(
        `the request breaks the document (${verdict.requestInvalid.join('; ')}) yet was answered ${exchange.status}`,
      );
    }
    return verdict;
  }

  /**
   * `$default`'s redirect of a page's address written with a trailing slash (`…/console/`, the console link's) to the
   * page's own (shared/http/fallback.ts): like its 404 and 405, an answer of no operation.
   */
  #toPageWithoutSlash(exchange: Exchange, path: string): boolean {
    const bare = path.replace(/\/+$/, '');
    if (exchange.method !== 'GET' || bare === path || !this.match('GET', bare)) return false;
    if (exchange.redirected) return true;
    const location = lowerCase(exchange.responseHeaders).location;
    return exchange.status === 302 && location !== undefined && new URL(location, 'http://x').pathname === bare;
  }

  #requestProblems(operation: Operation, params: Record<string, string>, url: URL, exchange: Exchange): string[] {
    const problems: string[] = [];
    const parameters = operation.parameters ?? [];
    const headers = lowerCase(exchange.requestHeaders);
    for (const parameter of parameters) {
      const raw =
        parameter.in === 'path'
          ? params[parameter.name]
          : parameter.in === 'query'
            ? (url.searchParams.get(parameter.name) ?? undefined)
            : headers[parameter.name.toLowerCase()];
      if (raw === undefined) {
        if (parameter.required) problems.push(`${parameter.in} ${parameter.name} is required`);
        continue;
      }
      problems.push(
        ...this.#check(
          parameter.schema,
          this.#parameterValue(parameter.schema, raw),
          `${parameter.in} ${parameter.name}`,
        ),
      );
    }
    // An operation with a query refuses what it does not know (strict schemas); one without ignores any query.
    // Meta's handshake (hub.*) is the one open query.
    const known = new Set(
      parameters.filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name),
    );
    const strictQuery = known.size > 0 && ![...known].some((name) => name.startsWith('hub.'));
    for (const name of url.searchParams.keys()) {
      if (strictQuery && !known.has(name)) problems.push(`query ${name} is not declared`);
    }
    const body = exchange.requestBody;
    // A body sent to an operation that takes none is ignored, as HTTP allows.
    if (!operation.requestBody) return problems;
    if (!body) {
      if (operation.requestBody.required) problems.push('the body is required');
      return problems;
    }
    const mediaType = operation.requestBody.content[mediaTypeOf(headers['content-type'])];
    if (!mediaType) {
      problems.push(`request content type ${headers['content-type']} is not declared`);
      return problems;
    }
    const parsed = parseJson(body);
    if (!parsed.ok) return [...problems, 'the body is not JSON'];
    return [...problems, ...this.#check(mediaType.schema, parsed.value, 'request body')];
  }

  #responseProblems(operation: Operation, exchange: Exchange): string[] {
    if (exchange.redirected) {
      return Object.keys(operation.responses).some((status) => status.startsWith('3'))
        ? []
        : ['the answer redirected, but the operation declares no 3XX'];
    }
    const status = String(exchange.status);
    const response = operation.responses[status] ?? operation.responses[`${status[0]}XX`];
    if (!response) return [`status ${status} is not declared`];
    const problems: string[] = [];
    const headers = lowerCase(exchange.responseHeaders);
    for (const [name, header] of Object.entries(response.headers ?? {})) {
      const raw = headers[name.toLowerCase()];
      if (raw === undefined) {
        if (header.required) problems.push(`response header ${name} is missing`);
        continue;
      }
      problems.push(...this.#check(header.schema, this.#parameterValue(header.schema, raw), `response header ${name}`));
    }
    if (!response.content) {
      if (exchange.responseBody.length > 0) problems.push(`status ${status} declares no body, yet one came`);
      return problems;
    }
    const contentType = mediaTypeOf(headers['content-type']);
    const mediaType = response.content[contentType];
    if (!mediaType) return [...problems, `content type ${contentType || '(none)'} is not declared for ${status}`];
    if (!contentType.endsWith('json'))
      return [...problems, ...this.#check(mediaType.schema, exchange.responseBody, 'body')];
    const parsed = parseJson(exchange.responseBody);
    if (!parsed.ok) return [...problems, 'the body is not JSON'];
    return [...problems, ...this.#check(mediaType.schema, parsed.value, 'body')];
  }

  /**
   * Checks a webhook delivery the service sent (CONTRACT §7, §20) against the document's `webhooks` entry of its
   * body's `type`: the delivery headers and the body, strictly (an undeclared property is a violation), as an
   * integrator's validator would.
   */
  validateDelivery(delivery: { headers: Record<string, string | string[] | undefined>; body: string }): string[] {
    const parsed = parseJson(delivery.body);
    if (!parsed.ok) return ['the delivery body is not JSON'];
    const type = (parsed.value as { type?: unknown }).type;
    const operation = typeof type === 'string' ? this.#webhooks[type]?.post : undefined;
    if (!operation) return [`the document declares no webhook for type ${String(type)}`];
    const headers = lowerCase(
      Object.fromEntries(
        Object.entries(delivery.headers).flatMap(([name, value]) =>
          value === undefined ? [] : [[name, Array.isArray(value) ? value.join(', ') : value]],
        ),
      ),
    );
    const problems: string[] = [];
    for (const parameter of operation.parameters ?? []) {
      if (parameter.in !== 'header') continue;
      const raw = headers[parameter.name.toLowerCase()];
      if (raw === undefined) {
        if (parameter.required) problems.push(`header ${parameter.name} is required`);
        continue;
      }
      problems.push(...this.#check(parameter.schema, raw, `header ${parameter.name}`));
    }
    const schema = operation.requestBody?.content['application/json']?.schema;
    return [...problems, ...this.#check(schema, parsed.value, `${type} body`)];
  }

  /** Validates a value against a schema of the document, closed as the exchanges are (for examples). */
  check(schema: Json, value: unknown, document: Json, where = ''): string[] {
    const key = JSON.stringify(schema);
    let closed = this.#closed.get(key);
    if (!closed) {
      closed = strict(schema, document) as Json;
      this.#closed.set(key, closed);
    }
    return this.#check(closed, value, where);
  }
}

/** A path segment as the service reads it; one that is not valid percent-encoding stays as sent. */
function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function lowerCase(headers: Record<string, string>) {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}
