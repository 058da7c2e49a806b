import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startLocalStack } from '#infra/local/stack';
import { TEST_STACK_ENV } from '#test/support/local-stack';

describe('local stack data dir', () => {
  it('keeps organisations, credentials and signing keys across a restart, and seeds only once', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'wpcrm-persist-'));
    const env = { ...process.env, ...TEST_STACK_ENV, WPCRM_DATA_DIR: dataDir };
    try {
      const first = await startLocalStack({ env });
      const demo = first.demo!;
      const stackFile = JSON.parse(await readFile(join(dataDir, 'stack.json'), 'utf8')) as { apiUrl: string };
      const keysBefore = await (await fetch(`${first.apiUrl}/.well-known/jwks.json`)).json();
      const tokenBefore = await fetch(`${first.apiUrl}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(demo.credentials.ACCOUNT_OWNER),
      });
      const { accessToken } = (await tokenBefore.json()) as { accessToken: string };
      await first.close();

      const second = await startLocalStack({ env });
      try {
        const channels = await fetch(`${second.apiUrl}/channels/${demo.orgId}`, {
          headers: { authorization: `Bearer ${accessToken}` },
        });
        const keysAfter = await (await fetch(`${second.apiUrl}/.well-known/jwks.json`)).json();

        expect(stackFile.apiUrl).toBe(first.apiUrl);
        expect(second.demo).toEqual(demo);
        expect(keysAfter).toEqual(keysBefore);
        expect(channels.status).toBe(200);
        expect(((await channels.json()) as { channels: unknown[] }).channels).toHaveLength(3);
      } finally {
        await second.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
