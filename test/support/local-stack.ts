import { afterAll, beforeAll } from 'vitest';
import { type LocalStack, startLocalStack } from '#infra/local/stack';
import { deps } from '#shared/config/deps';
import type { Role } from '#shared/domain/auth/roles';
import { createCredential, createOrg } from '#shared/domain/orgs/administer';
import { EPHEMERAL_STACK_ENV } from './stack-harness.ts';

/** Environment of a test stack: every port picked free, nothing kept on disk. */
export const TEST_STACK_ENV = { ...EPHEMERAL_STACK_ENV, WPCRM_SWEEP_INTERVAL_MS: '200' };

export interface TestStack {
  stack: LocalStack;
  /** The demo organisation's id. */
  orgId: string;
  /** A fresh access token of the demo organisation for `role`. */
  token(role: Role): Promise<string>;
  /** A new organisation beside the demo one, and an access token of a credential of it with `roles`. */
  newOrg(name: string, roles?: Role[]): Promise<{ orgId: string; token: string }>;
  /** fetch() against the API, relative to /api/wp-crm. */
  call(path: string, init?: RequestInit & { token?: string; json?: unknown }): Promise<Response>;
}

/**
 * Starts the local stack (real dynalite, s3rver, HTTP) once for the test file and stops it afterwards.
 * The returned object is filled in by `beforeAll`.
 */
export function useLocalStack(env: Record<string, string> = {}): TestStack {
  const handle = {} as TestStack;
  beforeAll(async () => {
    const stack = await startLocalStack({ env: { ...process.env, ...TEST_STACK_ENV, ...env } });
    const demo = stack.demo!;
    handle.stack = stack;
    handle.orgId = demo.orgId;
    handle.call = (path, init = {}) => {
      const { token, json, headers, ...rest } = init;
      const merged = new Headers(headers);
      if (token) merged.set('authorization', `Bearer ${token}`);
      if (json !== undefined) merged.set('content-type', 'application/json');
      return fetch(`${stack.apiUrl}${path}`, {
        ...rest,
        headers: merged,
        body: json !== undefined ? JSON.stringify(json) : rest.body,
      });
    };
    handle.token = async (role) => {
      const response = await handle.call('/token', { method: 'POST', json: demo.credentials[role] });
      if (response.status !== 200) throw new Error(`token for ${role}: ${response.status} ${await response.text()}`);
      return ((await response.json()) as { accessToken: string }).accessToken;
    };
    handle.newOrg = async (name, roles = ['CRM_ADMIN']) => {
      const { orgId } = await createOrg(deps(), { name });
      const credential = await createCredential(deps(), { orgId, roles });
      const response = await handle.call('/token', {
        method: 'POST',
        json: { clientId: credential.clientId, clientSecret: credential.clientSecret },
      });
      if (response.status !== 200) throw new Error(`token for ${name}: ${response.status} ${await response.text()}`);
      return { orgId, token: ((await response.json()) as { accessToken: string }).accessToken };
    };
  });
  afterAll(async () => {
    await handle.stack?.close();
  });
  return handle;
}

export { eventually } from './eventually.ts';
