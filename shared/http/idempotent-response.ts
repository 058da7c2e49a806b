import { type IdempotentResult, idempotent } from '#shared/domain/idempotency/idempotent';
import type { Clock } from '#shared/ports/clock';
import type { IdempotencyStore } from '#shared/ports/idempotency-store';
import type { IdGenerator } from '#shared/ports/ids';
import { type HttpResult, json } from './responses.ts';

/**
 * Runs `action` under the request's Idempotency-Key and answers with its (possibly replayed) response; `action`
 * creates what it creates under the id it is given (see `idempotent`).
 */
export async function idempotentResponse(
  deps: { clock: Clock; limits: IdempotencyStore; ids: IdGenerator },
  request: { orgId: string; idempotencyKey: string | undefined; operation: string; payload: unknown; idPrefix: string },
  action: (id: string) => Promise<{ statusCode: number; body: unknown; location?: string }>,
): Promise<HttpResult> {
  const result: IdempotentResult = await idempotent(
    deps,
    {
      orgId: request.orgId,
      key: request.idempotencyKey,
      operation: request.operation,
      body: request.payload,
      idPrefix: request.idPrefix,
    },
    async (id) => {
      const { statusCode, body, location } = await action(id);
      const headers: Record<string, string> = location ? { location } : {};
      return { statusCode, body, headers };
    },
  );
  const headers = { ...result.response.headers, ...(result.replayed ? { 'idempotent-replayed': 'true' } : {}) };
  return json(result.response.statusCode, result.response.body, headers);
}
