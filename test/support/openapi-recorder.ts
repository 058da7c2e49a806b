import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openApiDocument } from '#shared/openapi/document';
import { BASE_PATH } from '#shared/routes/route';
import { type Exchange, OpenApiValidator, type Verdict } from './openapi-validator.ts';

/**
 * Validates every exchange with the API that a test process makes through `fetch` against openapi.json
 * (CONTRACT §19), whoever makes it: a test, the generated client, or the WhatsApp simulator posting Meta's
 * notifications in process. Each test file's verdicts go to test-results/openapi/exchanges/, and the suites'
 * global teardowns sum them up (`summariseExchanges`).
 */
export const EXCHANGES_DIR = join('test-results', 'openapi', 'exchanges');

export interface RecordedExchange extends Pick<Verdict, 'operationId' | 'status' | 'violations'> {
  method: string;
  path: string;
  /** The request broke the document on purpose (a test of a refusal), and the answer was a 4XX. */
  refusal: boolean;
}

let validator: OpenApiValidator | undefined;
const pending: Promise<void>[] = [];
const captured: Exchange[] = [];

const headersOf = (headers: Headers) => Object.fromEntries(headers.entries());

/** Reads what an exchange carried; the validation itself waits for the end of the file (`flushExchanges`). */
async function capture(request: Request, response: Response, path: string): Promise<void> {
  captured.push({
    method: request.method,
    url: path,
    requestHeaders: headersOf(request.headers),
    ...(request.body ? { requestBody: await request.text() } : {}),
    status: response.status,
    responseHeaders: headersOf(response.headers),
    responseBody: response.redirected ? '' : await response.text(),
    redirected: response.redirected,
  });
}

function verdictOf(exchange: Exchange): RecordedExchange {
  validator ??= new OpenApiValidator(openApiDocument());
  const path = new URL(exchange.url, 'http://x').pathname;
  const status = exchange.redirected ? 303 : exchange.status;
  try {
    const verdict = validator.validate(exchange);
    return {
      operationId: verdict.operationId,
      method: exchange.method,
      path,
      status,
      violations: verdict.violations,
      refusal: verdict.requestInvalid.length > 0,
    };
  } catch (error) {
    const violations = [`could not validate: ${String(error)}`];
    return { operationId: undefined, method: exchange.method, path, status, violations, refusal: false };
  }
}

/** Wraps the global fetch: calls to the API are validated after the fact; every call behaves as before. */
export function recordApiExchanges(): void {
  const inner = globalThis.fetch;
  globalThis.fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const at = url.pathname.indexOf(`${BASE_PATH}/`);
    if (at < 0 && url.pathname !== BASE_PATH) return inner(input, init);
    const copy = request.clone();
    const response = await inner(request);
    pending.push(
      capture(copy, response.clone(), `${url.pathname.slice(Math.max(at, 0))}${url.search}`).catch(() => {
        // The test gave up on the answer (e.g. aborted it): nothing to check.
      }),
    );
    return response;
  };
}

/** Waits for the validations under way, writes this file's verdicts, and returns its violations. */
export async function flushExchanges(testFile: string): Promise<RecordedExchange[]> {
  await Promise.all(pending.splice(0));
  const recorded = captured.splice(0).map(verdictOf);
  mkdirSync(EXCHANGES_DIR, { recursive: true });
  const name = `${testFile.replace(/^.*?\/test\//, 'test/').replaceAll('/', '__')}.json`;
  writeFileSync(join(EXCHANGES_DIR, name), JSON.stringify({ file: testFile, exchanges: recorded }));
  return recorded.filter((exchange) => exchange.violations.length > 0);
}

/** Forgets the verdicts of an earlier run of the suites under `prefix` (e.g. `test/e2e/`). */
export function clearExchanges(prefix: string): void {
  const start = prefix.replaceAll('/', '__');
  for (const file of safeList()) if (file.startsWith(start)) rmSync(join(EXCHANGES_DIR, file), { force: true });
}

function safeList(): string[] {
  try {
    return readdirSync(EXCHANGES_DIR);
  } catch {
    return [];
  }
}

/**
 * The coverage of the suites under `prefix`: exchanges, operations and documented statuses seen, violations.
 * Written to test-results/openapi/<name>.json and printed.
 */
export function summariseExchanges(prefix: string, name: string) {
  const start = prefix.replaceAll('/', '__');
  const exchanges = safeList()
    .filter((file) => file.startsWith(start))
    .flatMap(
      (file) =>
        (JSON.parse(readFileSync(join(EXCHANGES_DIR, file), 'utf8')) as { exchanges: RecordedExchange[] }).exchanges,
    );
  const declared = new OpenApiValidator(openApiDocument()).declared;
  const seen = new Map<string, Set<string>>();
  for (const exchange of exchanges) {
    if (!exchange.operationId) continue;
    const statuses = seen.get(exchange.operationId) ?? new Set();
    statuses.add(String(exchange.status));
    seen.set(exchange.operationId, statuses);
  }
  const documented = [...declared].flatMap(([operationId, statuses]) =>
    statuses.map((status) => `${operationId} ${status}`),
  );
  const covered = documented.filter((entry) => {
    const [operationId, status] = entry.split(' ');
    return seen.get(operationId!)?.has(status!);
  });
  const violations = exchanges.filter((exchange) => exchange.violations.length > 0);
  const summary = {
    exchanges: exchanges.length,
    refusals: exchanges.filter((exchange) => exchange.refusal).length,
    outsideTheDocument: exchanges.filter((exchange) => !exchange.operationId).length,
    operations: { covered: seen.size, documented: declared.size },
    uncoveredOperations: [...declared.keys()].filter((operationId) => !seen.has(operationId)),
    statuses: { covered: covered.length, documented: documented.length },
    coveredStatuses: Object.fromEntries(
      [...seen].map(([operationId, statuses]) => [operationId, [...statuses].sort()]),
    ),
    violations: violations.length,
    violating: violations.slice(0, 50),
  };
  mkdirSync(join('test-results', 'openapi'), { recursive: true });
  writeFileSync(join('test-results', 'openapi', `${name}.json`), `${JSON.stringify(summary, null, 2)}\n`);
  console.log(
    `openapi.json validation (${name}): ${summary.exchanges} exchanges (${summary.refusals} refusals of invalid ` +
      `requests), ${summary.operations.covered}/${summary.operations.documented} operations, ` +
      `${summary.statuses.covered}/${summary.statuses.documented} documented statuses, ${summary.violations} violations`,
  );
  return summary;
}
