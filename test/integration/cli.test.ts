import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { killCliProcesses, wpcrm } from '#test/support/cli';
import { useLocalStack } from '#test/support/local-stack';

const json = (text: string) => JSON.parse(text) as Record<string, unknown>;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('wpcrm', () => {
  const api = useLocalStack();
  const emptyDirs: string[] = [];

  afterAll(async () => {
    killCliProcesses();
    await Promise.all(emptyDirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it('creates an organisation, credentials and channels that the API then serves', async () => {
    const dataDir = api.stack.dataDir;

    const org = await wpcrm(['org', 'create', '--name', 'Acme'], dataDir);
    const { orgId } = json(org.stdout) as { orgId: string };
    const credential = await wpcrm(['credential', 'create', '--org', orgId, '--roles', 'CRM_ADMIN,CRM_AGENT'], dataDir);
    const { clientId, clientSecret, roles } = json(credential.stdout);
    const channel = (name: string, phone: string, ...flags: string[]) =>
      wpcrm(['channel', 'create', '--org', orgId, '--name', name, '--phone', phone, ...flags], dataDir);
    const [official, unofficial] = await Promise.all([
      channel(
        'Acme WhatsApp',
        '+4915100000101',
        '--type',
        'MESSAGING_OFFICIAL',
        '--official-business-account',
        'true',
        '--phone-number-id',
        '200000000000001',
        '--access-token',
        'local-token',
        '--invite-template',
        'acme_group_invite',
        '--invite-template-language',
        'de',
      ),
      channel('Acme other', '+4915100000102', '--type', 'MESSAGING_UNOFFICIAL'),
    ]);
    const tokenResponse = await api.call('/token', { method: 'POST', json: { clientId, clientSecret } });
    const token = (await tokenResponse.json()) as { accessToken: string };
    const list = await api.call(`/channels/${orgId}`, { token: token.accessToken });

    for (const run of [org, credential, official, unofficial]) expect(run).toMatchObject({ status: 0, stderr: '' });
    expect(orgId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(clientId).toMatch(/^cli_/);
    expect(roles).toEqual(['CRM_ADMIN', 'CRM_AGENT']);
    expect(tokenResponse.status).toBe(200);
    expect(token).toMatchObject({ org: orgId, roles: ['CRM_ADMIN', 'CRM_AGENT'] });
    expect(list.status).toBe(200);
    const { channels } = (await list.json()) as { channels: Record<string, unknown>[] };
    expect(channels).toHaveLength(2);
    expect(channels).toContainEqual(
      expect.objectContaining({
        channelId: json(official.stdout).channelId,
        type: 'MESSAGING_OFFICIAL',
        phoneNumber: '+4915100000101',
        officialBusinessAccount: true,
        groupsEligible: true,
        inviteTemplate: { name: 'acme_group_invite', language: 'de' },
      }),
    );
    expect(channels).toContainEqual(
      expect.objectContaining({
        channelId: json(unofficial.stdout).channelId,
        officialBusinessAccount: false,
        groupsEligible: false,
        inviteTemplate: { name: 'group_invite_link', language: 'en_US' },
      }),
    );
  });

  const someOrg = randomUUID();
  it.concurrent.for<[string, string[], RegExp]>([
    ['an unknown role', ['credential', 'create', '--org', someOrg, '--roles', 'CRM_ADMIN,ROOT'], /--roles/],
    [
      'an unknown channel type',
      ['channel', 'create', '--org', someOrg, '--name', 'X', '--type', 'SMS', '--phone', '+4915100000103'],
      /--type/,
    ],
    [
      'a phone number not in E.164',
      ['channel', 'create', '--org', someOrg, '--name', 'X', '--type', 'EMAIL', '--phone', '015100000103'],
      /--phone/,
    ],
    [
      'an invite template language that is no language code',
      [
        'channel',
        'create',
        '--org',
        someOrg,
        '--name',
        'X',
        '--type',
        'MESSAGING_OFFICIAL',
        '--phone',
        '+4915100000103',
        '--invite-template-language',
        'English',
      ],
      /--invite-template-language/,
    ],
    ['a missing flag', ['org', 'create'], /--name/],
    ['an unknown organisation', ['credential', 'create', '--org', someOrg, '--roles', 'CRM_ADMIN'], /does not exist/],
  ])('exits 1 with VALIDATION_FAILED on stderr for %s', async ([, args, message], { expect }) => {
    const run = await wpcrm(args, api.stack.dataDir);

    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(json(run.stderr)).toEqual({ error: { code: 'VALIDATION_FAILED', message: expect.stringMatching(message) } });
  });

  it('exits 2 with STACK_NOT_RUNNING when the data dir holds no stack.json', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'wpcrm-cli-'));
    emptyDirs.push(dataDir);

    const run = await wpcrm(['org', 'create', '--name', 'Acme'], dataDir);

    expect(run).toMatchObject({ status: 2, stdout: '' });
    expect(json(run.stderr)).toMatchObject({ error: { code: 'STACK_NOT_RUNNING' } });
  });

  it('exits 2 with STACK_NOT_RUNNING when nothing listens on the port in stack.json', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'wpcrm-cli-'));
    emptyDirs.push(dataDir);
    const stale = { endpoints: { dynamodb: `http://127.0.0.1:${await freePort()}` }, tableName: 'wpcrm' };
    await writeFile(join(dataDir, 'stack.json'), JSON.stringify(stale));

    const run = await wpcrm(['org', 'create', '--name', 'Acme'], dataDir);

    expect(run).toMatchObject({ status: 2, stdout: '' });
    expect(json(run.stderr)).toMatchObject({ error: { code: 'STACK_NOT_RUNNING' } });
  });
});
