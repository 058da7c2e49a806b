import { describe, expect, it } from 'vitest';
import { main } from '#bin/cli/main';
import { eventually } from '#test/support/eventually';
import { call, dataDir } from './target.ts';

/**
 * The operator's day-two commands against the deployment under test (CONTRACT §17): under start:cdk the functions run
 * with their template roles, and global-setup fails the suite on any denied call.
 */
describe('wpcrm operator commands against the running stack', () => {
  async function wpcrm(...args: string[]): Promise<Record<string, unknown>> {
    const out: string[] = [];
    const err: string[] = [];
    const status = await main(
      args,
      { out: (line) => out.push(line), err: (line) => err.push(line) },
      {
        WPCRM_DATA_DIR: dataDir,
      },
    );
    if (status !== 0) throw new Error(`wpcrm ${args.join(' ')}: ${status} ${err.join('\n')}`);
    return JSON.parse(out.join('')) as Record<string, unknown>;
  }

  async function signedIn(name: string) {
    const { orgId } = (await wpcrm('org', 'create', '--name', name)) as { orgId: string };
    const { clientId, clientSecret } = (await wpcrm(
      'credential',
      'create',
      '--org',
      orgId,
      '--roles',
      'CRM_ADMIN',
    )) as {
      clientId: string;
      clientSecret: string;
    };
    const issue = () => call('/token', { method: 'POST', json: { clientId, clientSecret } });
    const response = await issue();
    expect(response.status).toBe(200);
    const { accessToken } = (await response.json()) as { accessToken: string };
    return { orgId, clientId, accessToken, issue };
  }

  const POLL = { timeoutMs: 75_000, intervalMs: 1_000 };

  it('refuses a suspended organisation within a minute (403 ORG_SUSPENDED) and serves it again after resume', async () => {
    const { orgId, accessToken, issue } = await signedIn('E2E suspended');
    expect((await call(`/channels/${orgId}`, { token: accessToken })).status).toBe(200);

    await wpcrm('org', 'suspend', '--org', orgId);
    const refused = await eventually(async () => {
      const response = await call(`/channels/${orgId}`, { token: accessToken });
      expect(response.status).toBe(403);
      return (await response.json()) as { code: string };
    }, POLL);
    const refusedToken = await issue();
    await wpcrm('org', 'resume', '--org', orgId);

    expect(refused.code).toBe('ORG_SUSPENDED');
    expect(refusedToken.status).toBe(403);
    await eventually(async () => {
      expect((await call(`/channels/${orgId}`, { token: accessToken })).status).toBe(200);
    }, POLL);
    expect((await issue()).status).toBe(200);
  }, 200_000);

  it('refuses a revoked credential at once at /token and its tokens within a minute (401)', async () => {
    const { orgId, clientId, accessToken, issue } = await signedIn('E2E revoked');
    expect((await call(`/channels/${orgId}`, { token: accessToken })).status).toBe(200);

    await wpcrm('credential', 'revoke', '--client-id', clientId);
    const refusedToken = await issue();

    expect(refusedToken.status).toBe(401);
    expect(await refusedToken.json()).toMatchObject({ code: 'INVALID_CLIENT' });
    await eventually(async () => {
      expect((await call(`/channels/${orgId}`, { token: accessToken })).status).toBe(401);
    }, POLL);
  }, 200_000);
});
