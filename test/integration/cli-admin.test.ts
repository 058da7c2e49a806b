import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { main } from '#bin/cli/main';
import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { DynamoOrgAdminStore } from '#shared/adapters/dynamodb/org-admin-store';
import { S3OrgFiles } from '#shared/adapters/s3/org-files';
import { S3Rest } from '#shared/adapters/s3/s3-rest';
import { eraseOrg } from '#shared/domain/orgs/erase-org';
import { systemClock } from '#shared/ports/clock';
import type { OrgEraseStore } from '#shared/ports/org-admin-store';
import { eventually, useLocalStack } from '#test/support/local-stack';

type Json = Record<string, unknown>;

describe('wpcrm operator commands (CONTRACT §17)', () => {
  const api = useLocalStack({ ACCESS_STATUS_CACHE_SECONDS: '0' });

  /** The command line in this process (the child-process behaviour is cli.test.ts's), against the test stack. */
  const run = async (...args: string[]) => {
    let stdout = '';
    let stderr = '';
    const io = { out: (line: string) => (stdout += `${line}\n`), err: (line: string) => (stderr += `${line}\n`) };
    const status = await main(args, io, { WPCRM_DATA_DIR: api.stack.dataDir });
    return { status, stdout, stderr, json: stdout ? (JSON.parse(stdout) as Json) : undefined };
  };
  const ok = async (...args: string[]) => {
    const result = await run(...args);
    if (result.status !== 0) throw new Error(`wpcrm ${args.join(' ')}: ${result.status} ${result.stderr}`);
    return result.json as Json;
  };
  /** `org delete` with no drain: nothing of the organisation is in flight in these tests. */
  const deleteOrg = (orgId: string) => ok('org', 'delete', '--org', orgId, '--confirm', orgId, '--drain-seconds', '0');
  const error = (stderr: string) => (JSON.parse(stderr) as { error: { code: string; message: string } }).error;

  async function newOrg(name: string) {
    const { orgId } = (await ok('org', 'create', '--name', name)) as { orgId: string };
    const { clientId, clientSecret } = (await ok('credential', 'create', '--org', orgId, '--roles', 'CRM_ADMIN')) as {
      clientId: string;
      clientSecret: string;
    };
    const { channelId } = (await ok(
      ...['channel', 'create', '--org', orgId, '--name', `${name} WhatsApp`, '--type', 'MESSAGING_OFFICIAL'],
      ...['--phone', '+4915100000301', '--official-business-account', 'true', '--phone-number-id', '200000000000301'],
      ...['--access-token', 'first-token'],
    )) as { channelId: string };
    return { orgId, clientId, clientSecret, channelId };
  }

  const tokenFor = (clientId: string, clientSecret: string) =>
    api.call('/token', { method: 'POST', json: { clientId, clientSecret } });

  async function accessToken(clientId: string, clientSecret: string) {
    const response = await tokenFor(clientId, clientSecret);
    expect(response.status).toBe(200);
    return ((await response.json()) as { accessToken: string }).accessToken;
  }

  it('lists organisations and shows one with the counts of what it holds', async () => {
    const { orgId } = await newOrg('Listed');

    const list = await ok('org', 'list');
    const show = await ok('org', 'show', '--org', orgId);

    expect(list.organisations).toContainEqual({
      orgId,
      name: 'Listed',
      status: 'active',
      createdAt: expect.any(String),
    });
    expect(list.organisations).toContainEqual(expect.objectContaining({ orgId: api.orgId }));
    expect(show).toEqual({
      orgId,
      name: 'Listed',
      status: 'active',
      createdAt: expect.any(String),
      counts: { channels: 1, credentials: 1, groups: 0, reports: 0, subscriptions: 0 },
    });
  });

  it('suspends an organisation: its tokens get 403 ORG_SUSPENDED, POST /token too; resume restores both', async () => {
    const { orgId, clientId, clientSecret } = await newOrg('Suspended');
    const token = await accessToken(clientId, clientSecret);

    const suspended = await ok('org', 'suspend', '--org', orgId);
    const refused = await api.call(`/channels/${orgId}`, { token });
    const refusedToken = await tokenFor(clientId, clientSecret);
    const otherOrg = await api.call(`/channels/${api.orgId}`, { token: await api.token('CRM_ADMIN') });
    const resumed = await ok('org', 'resume', '--org', orgId);
    const again = await api.call(`/channels/${orgId}`, { token });

    expect(suspended).toMatchObject({ orgId, status: 'suspended' });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ code: 'ORG_SUSPENDED' });
    expect(refusedToken.status).toBe(403);
    expect(otherOrg.status).toBe(200);
    expect(resumed).toMatchObject({ orgId, status: 'active' });
    expect(again.status).toBe(200);
  });

  it("leaves a suspended organisation's queued work waiting in its queue, put back with a delay", async () => {
    const { orgId } = await newOrg('Waiting');
    await ok('org', 'suspend', '--org', orgId);
    const queue = api.stack.queues.get('report-requests')!;
    const job = JSON.stringify({ orgId, reportId: 'rpt_01JWAITINGWAITINGWAITING01' });
    const startedAt = Date.now();

    queue.send(job);

    const waiting = await eventually(() => {
      const held = queue.held().filter((message) => message.body === job);
      const [only] = held;
      if (held.length !== 1 || only!.receiveCount > 0 || only!.visibleAt < startedAt + 250_000) {
        throw new Error('not put back yet');
      }
      return held[0]!;
    });

    expect(waiting.receiveCount).toBe(0);
  });

  it('lists credentials without secrets, revokes one (token 401, POST /token 401 INVALID_CLIENT)', async () => {
    const { orgId, clientId, clientSecret } = await newOrg('Revoked');
    const token = await accessToken(clientId, clientSecret);

    const list = await run('credential', 'list', '--org', orgId);
    const revoked = await ok('credential', 'revoke', '--client-id', clientId);
    const refused = await api.call(`/channels/${orgId}`, { token });
    const refusedToken = await tokenFor(clientId, clientSecret);

    expect(list.json).toEqual({
      credentials: [
        expect.objectContaining({ clientId, orgId, roles: ['CRM_ADMIN'], status: 'active', revokedAt: null }),
      ],
    });
    expect(list.stdout).not.toContain(clientSecret);
    expect(list.stdout).not.toContain('scrypt');
    expect(revoked).toMatchObject({ clientId, status: 'revoked', revokedAt: expect.any(String) });
    expect(refused.status).toBe(401);
    expect(refusedToken.status).toBe(401);
    expect(await refusedToken.json()).toMatchObject({ code: 'INVALID_CLIENT' });
  });

  it('rotates a secret: the new one works, the old one only during the overlap', async () => {
    const { clientId, clientSecret } = await newOrg('Rotated');

    const overlapping = await ok('credential', 'rotate', '--client-id', clientId, '--overlap-seconds', '600');
    const oldDuringOverlap = await tokenFor(clientId, clientSecret);
    const newDuringOverlap = await tokenFor(clientId, overlapping.clientSecret as string);
    const immediate = await ok('credential', 'rotate', '--client-id', clientId);
    const previous = await tokenFor(clientId, overlapping.clientSecret as string);
    const latest = await tokenFor(clientId, immediate.clientSecret as string);

    expect(overlapping).toMatchObject({ clientId, clientSecret: expect.stringMatching(/^cs_/) });
    expect(overlapping.previousSecretExpiresAt).toEqual(expect.any(String));
    expect(oldDuringOverlap.status).toBe(200);
    expect(newDuringOverlap.status).toBe(200);
    expect(immediate.previousSecretExpiresAt).toBeNull();
    expect(previous.status).toBe(401);
    expect(latest.status).toBe(200);
  });

  it('lists channels without tokens, updates one, and a disabled channel refuses groups with 422 CHANNEL_DISABLED', async () => {
    const { orgId, clientId, clientSecret, channelId } = await newOrg('Channels');
    const token = await accessToken(clientId, clientSecret);

    const updated = await ok(
      ...['channel', 'update', '--channel', channelId, '--name', 'Renamed', '--access-token', 'second-token'],
      ...['--invite-template', 'group_invite', '--invite-template-language', 'en_US', '--groups-eligible', 'true'],
    );
    const list = await run('channel', 'list', '--org', orgId);
    const disabled = await ok('channel', 'disable', '--channel', channelId);
    const group = await api.call(`/groups/${orgId}`, {
      method: 'POST',
      token,
      headers: { 'idempotency-key': 'disabled-1' },
      json: { channelId, subject: 'Nope' },
    });

    expect(updated).toMatchObject({
      channelId,
      name: 'Renamed',
      groupsEligible: true,
      accessToken: 'stored',
      inviteTemplate: { name: 'group_invite', language: 'en_US' },
      status: 'active',
    });
    expect(list.json).toEqual({ channels: [expect.objectContaining({ channelId, name: 'Renamed' })] });
    expect(list.stdout).not.toContain('second-token');
    expect(disabled).toMatchObject({ channelId, status: 'disabled', disabledAt: expect.any(String) });
    expect(group.status).toBe(422);
    expect(await group.json()).toMatchObject({ code: 'CHANNEL_DISABLED' });
  });

  it('enables a disabled channel again: the same request is accepted at once', async () => {
    const { orgId, clientId, clientSecret, channelId } = await newOrg('Enabled');
    const token = await accessToken(clientId, clientSecret);
    const createGroup = (key: string) =>
      api.call(`/groups/${orgId}`, {
        method: 'POST',
        token,
        headers: { 'idempotency-key': key },
        json: { channelId, subject: 'Back again' },
      });
    await ok('channel', 'disable', '--channel', channelId);
    const whileDisabled = await createGroup('enable-1');

    const enabled = await ok('channel', 'enable', '--channel', channelId);
    const again = await ok('channel', 'enable', '--channel', channelId);
    const afterwards = await createGroup('enable-2');

    expect(whileDisabled.status).toBe(422);
    expect(enabled).toMatchObject({ channelId, status: 'active', disabledAt: null });
    expect(again).toMatchObject({ channelId, status: 'active', disabledAt: null });
    expect(afterwards.status).toBe(202);
  });

  it.each([
    [['org', 'show', '--org', 'not-a-uuid'], /--org/],
    [['org', 'show', '--org', '00000000-0000-4000-8000-000000000000'], /does not exist/],
    [['org', 'suspend', '--org', '00000000-0000-4000-8000-000000000000'], /does not exist/],
    [['credential', 'revoke', '--client-id', 'cli_01ZZZZZZZZZZZZZZZZZZZZZZZZ'], /does not exist/],
    [['credential', 'rotate', '--client-id', 'nope'], /--client-id/],
    [['credential', 'rotate', '--client-id', 'cli_01ZZZZZZZZZZZZZZZZZZZZZZZZ', '--overlap-seconds', '-1'], /overlap/],
    [['channel', 'update', '--channel', 'ch_01ZZZZZZZZZZZZZZZZZZZZZZZZ', '--name', 'x'], /does not exist/],
    [['channel', 'update', '--channel', 'ch_01ZZZZZZZZZZZZZZZZZZZZZZZZ'], /nothing to change/],
    [['channel', 'enable', '--channel', 'ch_01ZZZZZZZZZZZZZZZZZZZZZZZZ'], /does not exist/],
    [['channel', 'enable', '--channel', 'nope'], /--channel/],
    [['channel', 'update', '--channel', 'ch_1', '--invite-template', 'x'], /go together/],
    [['channel', 'update', '--channel', 'ch_1', '--access-token', 'a', '--access-token-secret-id', 'b'], /exclude/],
    [['org', 'list', '--bogus', 'x'], /bogus/],
  ])('refuses %j with a clear error on stderr and exit 1', async (args, message) => {
    const result = await run(...args);

    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(error(result.stderr).message).toMatch(message);
  });

  describe('org delete', () => {
    const table = () => {
      const { endpoints, tableName } = api.stack.info;
      return {
        db: createDocumentClient({
          region: 'eu-west-1',
          endpoint: endpoints.dynamodb,
          credentials: api.stack.info.credentials,
        }),
        tableName,
      };
    };
    const files = () =>
      new S3OrgFiles(
        new S3Rest(
          { bucket: api.stack.info.reportsBucket, region: 'eu-west-1', endpoint: api.stack.info.endpoints.s3 },
          { credentials: async () => api.stack.info.credentials, requestTimeoutMs: 5_000 },
        ),
      );

    async function everyItem(): Promise<string[]> {
      const { db, tableName } = table();
      const items: string[] = [];
      let ExclusiveStartKey: Record<string, unknown> | undefined;
      do {
        const page = await db.send(new ScanCommand({ TableName: tableName, ExclusiveStartKey }));
        for (const item of page.Items ?? []) items.push(JSON.stringify(item));
        ExclusiveStartKey = page.LastEvaluatedKey;
      } while (ExclusiveStartKey);
      db.destroy();
      return items;
    }

    const traces = async (ids: string[]) => {
      const items = await everyItem();
      const keys = await files().list('');
      return {
        items: items.filter((item) => ids.some((id) => item.includes(id))),
        files: keys.filter((key) => ids.some((id) => key.includes(id))),
      };
    };

    /** An organisation with a bit of everything: records, a subscription, a completed report with its file. */
    async function populatedOrg(name: string) {
      const org = await newOrg(name);
      await ok('data', 'generate', '--org', org.orgId, '--scale', '3');
      const token = await accessToken(org.clientId, org.clientSecret);
      const webhook = await api.call(`/webhooks/${org.orgId}`, {
        method: 'POST',
        token,
        json: { url: 'http://127.0.0.1:9/hooks', events: ['report.completed'] },
      });
      const { webhookId } = (await webhook.json()) as { webhookId: string };
      const requested = await api.call(`/reports/${org.orgId}`, {
        method: 'POST',
        token,
        json: { reportType: 'CHAT' },
      });
      const { reportId } = (await requested.json()) as { reportId: string };
      await eventually(
        async () => {
          const report = (await (await api.call(`/reports/${org.orgId}/${reportId}`, { token })).json()) as Json;
          expect(report.status).toBe('COMPLETED');
        },
        { timeoutMs: 30_000 },
      );
      const group = await api.call(`/groups/${org.orgId}`, {
        method: 'POST',
        token,
        headers: { 'idempotency-key': `group-${name}` },
        json: { channelId: org.channelId, subject: `${name} crew` },
      });
      const { requestId } = (await group.json()) as { requestId: string };
      const created = await eventually(
        async () => {
          const status = (await (
            await api.call(`/groups/${org.orgId}/creation-status/${requestId}`, { token })
          ).json()) as Json;
          expect(status.status).toBe('created');
          return status as { chatId: string };
        },
        { timeoutMs: 30_000 },
      );
      return { ...org, token, webhookId, reportId, requestId, chatId: created.chatId };
    }

    it('erases everything of the organisation from table and bucket, prints counts, and leaves another intact', async () => {
      const doomed = await populatedOrg('Doomed');
      const kept = await populatedOrg('Kept');
      const keptBefore = await ok('org', 'show', '--org', kept.orgId);
      const doomedIds = [
        ...[doomed.orgId, doomed.clientId, doomed.channelId, doomed.webhookId, doomed.reportId],
        ...[doomed.requestId, doomed.chatId],
      ];
      expect((await traces(doomedIds)).files).toHaveLength(1);

      const deleted = await deleteOrg(doomed.orgId);

      expect(deleted).toEqual({
        orgId: doomed.orgId,
        erased: expect.objectContaining({
          organisation: 1,
          credentials: 1,
          channels: 1,
          reports: 1,
          reportFiles: 1,
          subscriptions: 2,
          groups: expect.any(Number),
          groupRequests: 1,
          networkLinks: expect.any(Number),
          records: expect.any(Number),
        }),
      });
      expect(await traces(doomedIds)).toEqual({ items: [], files: [] });
      expect((await api.call(`/channels/${doomed.orgId}`, { token: doomed.token })).status).toBe(401);
      expect((await tokenFor(doomed.clientId, doomed.clientSecret)).status).toBe(401);
      expect((await run('org', 'show', '--org', doomed.orgId)).status).toBe(1);
      expect(await ok('org', 'show', '--org', kept.orgId)).toEqual(keptBefore);
      expect((await traces([kept.reportId])).files).toHaveLength(1);
      expect((await api.call(`/channels/${kept.orgId}`, { token: kept.token })).status).toBe(200);
    });

    it("erases by the organisation's own keys: another organisation's items that quote its ids stay, item for item (CONTRACT §17)", async () => {
      const doomed = await populatedOrg('Quoted');
      const kept = await populatedOrg('Quoting');
      const quote = `see ${doomed.orgId} ${doomed.clientId} ${doomed.channelId} ${doomed.chatId}`;
      api.stack.simulator!.join(
        ((await (await api.call(`/groups/${kept.orgId}/${kept.chatId}`, { token: kept.token })).json()) as Json)
          .externalChatId as string,
        '4915112345678',
      );
      const sent = await api.call('/messaging/send-message', {
        method: 'POST',
        token: kept.token,
        json: { chatId: kept.chatId, text: quote },
      });
      expect(sent.status).toBe(202);
      await eventually(async () => {
        const quoting = (await everyItem()).filter((item) => item.includes(quote));
        expect(quoting.length).toBeGreaterThan(0);
      });
      const isKept = (item: string) => item.includes(kept.orgId) || item.includes(kept.clientId);
      const before = (await everyItem()).filter(isKept).sort();

      await deleteOrg(doomed.orgId);

      const after = (await everyItem()).filter(isKept).sort();
      const quoted = after.filter((item) => item.includes(quote));
      expect(quoted.length).toBeGreaterThan(0);
      // Every item of the kept organisation is still there, unchanged (ignoring what its own workers changed since:
      // a message's status moves on as Meta reports it).
      const keyOf = (item: string) => {
        const { PK, SK } = JSON.parse(item) as { PK: string; SK: string };
        return `${PK}|${SK}`;
      };
      expect(after.map(keyOf)).toEqual(expect.arrayContaining(before.map(keyOf)));
      expect(
        (await traces([doomed.orgId, doomed.clientId, doomed.channelId])).items.filter(
          (item) => !item.includes(quote) && !isKept(item),
        ),
      ).toEqual([]);
    });

    it('finishes an interrupted erasure when run again', async () => {
      const doomed = await populatedOrg('Interrupted');
      const { db, tableName } = table();
      const store = new DynamoOrgAdminStore(db, tableName);
      let deletes = 0;
      const failing: OrgEraseStore = {
        markDeleting: (orgId, at) => store.markDeleting(orgId, at),
        definingItems: (orgId) => store.definingItems(orgId),
        findItems: (orgId, onPage) => store.findItems(orgId, onPage),
        deleteItems: async (keys) => {
          deletes += 1;
          if (deletes === 2) throw new Error('interrupted');
          return store.deleteItems(keys);
        },
        deleteStatusCopy: (orgId) => store.deleteStatusCopy(orgId),
      };

      const interrupted = eraseOrg(
        { clock: systemClock, store: failing, files: files(), drainSeconds: 0 },
        { orgId: doomed.orgId },
      );
      await expect(interrupted).rejects.toThrow('interrupted');
      const midway = await traces([doomed.orgId]);
      const resumed = await deleteOrg(doomed.orgId);
      db.destroy();

      expect(midway.items.length).toBeGreaterThan(0);
      expect(resumed).toMatchObject({ orgId: doomed.orgId, erased: expect.objectContaining({ organisation: 1 }) });
      expect(await traces([doomed.orgId, doomed.clientId, doomed.channelId, doomed.webhookId])).toEqual({
        items: [],
        files: [],
      });
    });

    it('refuses a --confirm that does not repeat the id, and changes nothing', async () => {
      const { orgId } = await newOrg('Unconfirmed');

      const refused = await run('org', 'delete', '--org', orgId, '--confirm', api.orgId);

      expect(refused.status).toBe(1);
      expect(error(refused.stderr).message).toMatch(/--confirm/);
      expect(await ok('org', 'show', '--org', orgId)).toMatchObject({ orgId, status: 'active' });
    });
  });
});
