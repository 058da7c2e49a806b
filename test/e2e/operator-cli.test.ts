import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { killCliProcesses, wpcrm } from '#test/support/cli';
import { client, dataDir } from './target.ts';

/** The operator's command line against the deployment under test (CONTRACT §10, §14: the same under both stacks). */
describe('wpcrm against the running stack', () => {
  const elsewhere = mkdtempSync(join(tmpdir(), 'wpcrm-cli-'));
  afterAll(() => {
    killCliProcesses();
    rmSync(elsewhere, { recursive: true, force: true });
  });

  const stackFile = () =>
    JSON.parse(readFileSync(join(dataDir, 'stack.json'), 'utf8')) as {
      ports: { dynamodb: number };
      credentials: { accessKeyId: string; secretAccessKey: string };
    };

  async function provisionAndSignIn(run: (args: string[]) => ReturnType<typeof wpcrm>) {
    const org = await run(['org', 'create', '--name', 'Operator CLI']);
    expect(org.stderr).toBe('');
    const { orgId } = JSON.parse(org.stdout) as { orgId: string };
    const credential = await run(['credential', 'create', '--org', orgId, '--roles', 'CRM_ADMIN']);
    const { clientId, clientSecret } = JSON.parse(credential.stdout) as { clientId: string; clientSecret: string };
    const { response: token } = await client().POST('/api/wp-crm/token', { body: { clientId, clientSecret } });
    return { orgId, token };
  }

  it("finds the stack and its table from the data dir's stack.json", async () => {
    const { token } = await provisionAndSignIn((args) => wpcrm(args, dataDir));

    expect(token.status).toBe(200);
  });

  it('finds the table from the DynamoDB port (WPCRM_DYNAMODB_PORT) and the key of the run, whatever the stack named it', async () => {
    const { ports, credentials } = stackFile();
    // The key is fresh for each run (CONTRACT §21): without the stack's data dir, the operator passes it.
    const env = {
      WPCRM_DYNAMODB_PORT: String(ports.dynamodb),
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    };

    const { orgId, token } = await provisionAndSignIn((args) => wpcrm(args, elsewhere, 60_000, env));

    expect(orgId).toMatch(/^[0-9a-f-]{36}$/);
    expect(token.status).toBe(200);
  });
});
