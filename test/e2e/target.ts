import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';
import { createWpCrmClient, type WpCrmClient } from '#clients/typescript/src/index';
import type { DemoSeed } from '#infra/local/seed';
import type { Role } from '#shared/domain/auth/roles';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Set by global-setup.ts when it started the deployment itself. */
    e2eTarget: { baseUrl: string; dataDir: string };
  }
}

/**
 * The deployment under test, from global-setup.ts: the one it started (`npm run start:cdk`, IAM enforced), or a
 * running one named by BASE_URL and E2E_DATA_DIR (its data dir: demo.json and stack.json, for the demo credentials
 * and the WhatsApp simulator).
 */
function target() {
  const provided = inject('e2eTarget');
  if (!provided) throw new Error('no e2e target: run the e2e project through vitest (npm run test:e2e)');
  return provided;
}

export const { baseUrl, dataDir } = target();

/** The origin (and any stage path) in front of /api/wp-crm: the client's paths carry /api/wp-crm themselves. */
const clientBaseUrl = baseUrl.replace(/\/api\/wp-crm\/?$/, '');

/** The generated client (@wp-crm/client) against the deployment, with a bearer token when given. */
export function client(token?: string): WpCrmClient {
  return createWpCrmClient({ baseUrl: clientBaseUrl, ...(token ? { token } : {}) });
}

/** The demo organisation and the simulator of a local deployment (npm start or npm run start:cdk). */
export function localDeployment() {
  const read = (file: string) => {
    try {
      return JSON.parse(readFileSync(join(dataDir, file), 'utf8'));
    } catch {
      throw new Error(`${join(dataDir, file)} is missing: point E2E_DATA_DIR at the running stack's data dir`);
    }
  };
  const demo = read('demo.json') as DemoSeed;
  const stack = read('stack.json') as { ports: { simulator: number | null } };
  if (!stack.ports.simulator) throw new Error('the stack runs without the WhatsApp simulator');
  const simulatorUrl = `http://127.0.0.1:${stack.ports.simulator}/_simulator`;
  return {
    demo,
    orgId: demo.orgId,
    async token(role: Role): Promise<string> {
      const { data, error, response } = await client().POST('/api/wp-crm/token', { body: demo.credentials[role] });
      if (!data) throw new Error(`token for ${role}: ${response.status} ${JSON.stringify(error)}`);
      return data.accessToken;
    },
    /** The simulator's control API (infra/local/simulator/README.md). */
    async simulator<T = unknown>(path: string, body?: unknown): Promise<T> {
      const response = await fetch(`${simulatorUrl}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (!response.ok) throw new Error(`simulator ${path}: ${response.status} ${await response.text()}`);
      return (await response.json()) as T;
    },
  };
}

/** fetch() relative to the API's base URL, with a bearer token and a JSON body when given. */
export function call(path: string, init: RequestInit & { token?: string; json?: unknown } = {}): Promise<Response> {
  const { token, json, headers, ...rest } = init;
  const merged = new Headers(headers);
  if (token) merged.set('authorization', `Bearer ${token}`);
  if (json !== undefined) merged.set('content-type', 'application/json');
  return fetch(`${baseUrl}${path}`, {
    ...rest,
    headers: merged,
    body: json !== undefined ? JSON.stringify(json) : rest.body,
  });
}
