import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { main } from '#bin/cli/main';
import { drainInvocations } from '#infra/local/lambda';
import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { DynamoOrgAdminStore } from '#shared/adapters/dynamodb/org-admin-store';
import { S3OrgFiles } from '#shared/adapters/s3/org-files';
import { S3Rest } from '#shared/adapters/s3/s3-rest';
import { eraseOrg } from '#shared/domain/orgs/erase-org';
import { REPORT_TYPES } from '#shared/domain/reports/records';
import { systemClock } from '#shared/ports/clock';
import type { OrgEraseStore, OrgFiles } from '#shared/ports/org-admin-store';
import { eventually, useLocalStack } from '#test/support/local-stack';

type Json = Record<string, unknown>;

/**
 * `org delete` while the organisation is busy (issue 34, CONTRACT §17): its admin keeps creating, its queued work
 * keeps arriving. The status cache keeps its default (30 s): the refusal must not depend on it.
 */
describe('org delete racing live traffic (CONTRACT §17)', () => {
  const api = useLocalStack({ REPORT_WINDOW_SECONDS: '0', WEBHOOK_RETRY_SCHEDULE_SECONDS: '1,1' });

  const cli = async (args: string[], onErr: (line: string) => void = () => undefined) => {
    let stdout = '';
    let stderr = '';
    const err = (line: string) => {
      stderr += `${line}\n`;
      onErr(line);
    };
    const status = await main(args, { out: (line) => (stdout += line), err }, { WPCRM_DATA_DIR: api.stack.dataDir });
    if (status !== 0) throw new Error(`wpcrm ${args.join(' ')}: ${status} ${stderr}`);
    return JSON.parse(stdout) as Json;
  };

  async function newOrg(name: string) {
    const { orgId } = (await cli(['org', 'create', '--name', name])) as { orgId: string };
    const credential = (await cli(['credential', 'create', '--org', orgId, '--roles', 'CRM_ADMIN'])) as {
      clientId: string;
      clientSecret: string;
    };
    const { channelId } = (await cli([
      ...['channel', 'create', '--org', orgId, '--name', `${name} WhatsApp`, '--type', 'MESSAGING_OFFICIAL'],
      ...['--phone', '+4915100000401', '--official-business-account', 'true', '--phone-number-id', '200000000000401'],
      ...['--access-token', 'racing-token'],
    ])) as { channelId: string };
    await cli(['data', 'generate', '--org', orgId, '--scale', '2']);
    const { clientId, clientSecret } = credential;
    const issued = await api.call('/token', { method: 'POST', json: { clientId, clientSecret } });
    const { accessToken: token } = (await issued.json()) as { accessToken: string };
    return { orgId, channelId, token, ...credential };
  }

  /** A group of the organisation with a member, so that messages can be sent to it. */
  async function groupOf(org: { orgId: string; channelId: string; token: string }) {
    const requested = await api.call(`/groups/${org.orgId}`, {
      method: 'POST',
      token: org.token,
      headers: { 'idempotency-key': `first-${org.orgId}` },
      json: { channelId: org.channelId, subject: 'Racing crew' },
    });
    const { requestId } = (await requested.json()) as { requestId: string };
    const { chatId } = await eventually(async () => {
      const status = (await (
        await api.call(`/groups/${org.orgId}/creation-status/${requestId}`, { token: org.token })
      ).json()) as Json;
      expect(status.status).toBe('created');
      return status as { chatId: string };
    });
    const group = (await (await api.call(`/groups/${org.orgId}/${chatId}`, { token: org.token })).json()) as Json;
    api.stack.simulator!.join(group.externalChatId as string, '4915112345678');
    return { chatId, requestId };
  }

  const table = () => {
    const { endpoints, tableName, credentials } = api.stack.info;
    return { db: createDocumentClient({ region: 'eu-west-1', endpoint: endpoints.dynamodb, credentials }), tableName };
  };
  const files = (): OrgFiles =>
    new S3OrgFiles(
      new S3Rest(
        { bucket: api.stack.info.reportsBucket, region: 'eu-west-1', endpoint: api.stack.info.endpoints.s3 },
        { credentials: async () => api.stack.info.credentials, requestTimeoutMs: 5_000 },
      ),
    );

  /** Every item and file that names one of `ids`, read by scanning the whole table and listing the whole bucket. */
  async function traces(ids: Iterable<string>) {
    const wanted = [...ids];
    const { db, tableName } = table();
    const items: string[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await db.send(new ScanCommand({ TableName: tableName, ExclusiveStartKey, ConsistentRead: true }));
      for (const item of page.Items ?? []) items.push(JSON.stringify(item));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    db.destroy();
    const keys = await files().list('');
    return {
      items: items.filter((item) => wanted.some((id) => item.includes(id))),
      files: keys.filter((key) => wanted.some((id) => key.includes(id))),
    };
  }

  /**
   * Lets every job of the organisation still in a queue arrive now — those waiting on a delay (put back, retried)
   * as copies marked `flushed` — and waits until the workers have taken each, and no handler runs any more.
   */
  async function settle(orgId: string) {
    for (const queue of api.stack.queues.values()) {
      for (const held of queue.held().filter((message) => message.body.includes(orgId))) {
        queue.send(JSON.stringify({ ...(JSON.parse(held.body) as Json), flushed: true }));
      }
    }
    await eventually(
      async () => {
        const left = [...api.stack.queues.values()].flatMap((queue) =>
          queue.held().filter((message) => message.body.includes(orgId) && message.body.includes('"flushed"')),
        );
        expect(left).toEqual([]);
        await drainInvocations();
      },
      { timeoutMs: 30_000 },
    );
  }

  /** A console session of the organisation (CONTRACT §24), and a link not used yet. */
  async function consoleOf(org: { orgId: string; token: string }) {
    const link = async () => {
      const created = await api.call(`/console-links/${org.orgId}`, { method: 'POST', token: org.token, json: {} });
      return new URL(((await created.json()) as { url: string }).url).hash.replace('#code=', '');
    };
    const signedIn = await api.call('/console-sessions', { method: 'POST', json: { code: await link() } });
    expect(signedIn.status).toBe(201);
    const cookie = signedIn.headers.get('set-cookie')!.split(';')[0]!;
    const { accessToken } = (await signedIn.json()) as { accessToken: string };
    return { cookie, sessionId: cookie.split('.')[1]!, accessToken, unused: await link() };
  }

  it('leaves no item and no file of the organisation: creates racing it are refused (401) from its first step', async () => {
    const org = await newOrg('Racing');
    const group = await groupOf(org);
    const session = await consoleOf(org);
    const ids = new Set([org.orgId, org.clientId, org.channelId, group.chatId, group.requestId, session.sessionId]);
    const started: { at: number; status: number; what: string }[] = [];
    let round = 0;
    const send = async (what: string, path: string, init: RequestInit & { json?: unknown }) => {
      const at = performance.now();
      const response = await api.call(path, { ...init, token: org.token });
      started.push({ at, status: response.status, what });
      if (response.ok) {
        for (const [field, value] of Object.entries((await response.json()) as Json)) {
          if (field.endsWith('Id') && typeof value === 'string') ids.add(value);
        }
      }
    };
    const writeRound = () => {
      round += 1;
      return Promise.all([
        send('subscription', `/webhooks/${org.orgId}`, {
          method: 'POST',
          json: { url: `http://127.0.0.1:9/hooks/${round}`, events: ['*'] },
        }),
        send('report', `/reports/${org.orgId}`, {
          method: 'POST',
          json: { reportType: REPORT_TYPES[round % REPORT_TYPES.length] },
        }),
        send('group', `/groups/${org.orgId}`, {
          method: 'POST',
          headers: { 'idempotency-key': `race-${round}` },
          json: { channelId: org.channelId, subject: `Crew ${round}` },
        }),
        send('message', '/messaging/send-message', {
          method: 'POST',
          json: { chatId: group.chatId, text: `hello ${round}` },
        }),
      ]);
    };
    // Some of each kind land before the erasure starts.
    for (let warmUp = 0; warmUp < 3; warmUp += 1) await writeRound();
    let fencedAt = Number.POSITIVE_INFINITY;
    const atFence: Promise<Response>[] = [];
    let erasing = true;
    const writers = (async () => {
      while (erasing) await writeRound();
    })();

    const deleted = await cli(
      ['org', 'delete', '--org', org.orgId, '--confirm', org.orgId, '--drain-seconds', '5'],
      (line) => {
        if (!line.includes('"draining"')) return;
        // The first step is done: from here on the organisation's token and credentials are refused.
        fencedAt = performance.now();
        atFence.push(
          api.call(`/channels/${org.orgId}`, { token: org.token }),
          api.call('/token', { method: 'POST', json: { clientId: org.clientId, clientSecret: org.clientSecret } }),
        );
      },
    );
    erasing = false;
    await writers;
    await writeRound();
    await settle(org.orgId);

    const [channels, token] = await Promise.all(atFence);
    expect(channels!.status).toBe(401);
    expect(token!.status).toBe(401);
    expect(await token!.json()).toMatchObject({ code: 'INVALID_CLIENT' });
    const afterFence = started.filter((request) => request.at > fencedAt);
    expect(afterFence.length).toBeGreaterThan(4);
    expect(afterFence.filter((request) => request.status !== 401)).toEqual([]);
    const before = started.filter((request) => request.at < fencedAt && request.status < 300);
    expect(new Set(before.map((request) => request.what))).toEqual(
      new Set(['subscription', 'report', 'group', 'message']),
    );
    expect(deleted).toMatchObject({
      orgId: org.orgId,
      erased: expect.objectContaining({
        organisation: 1,
        subscriptions: expect.any(Number),
        reports: expect.any(Number),
        consoleLinks: 2,
        consoleSessions: 1,
      }),
    });
    expect(await traces(ids)).toEqual({ items: [], files: [] });
    // The console's session and its token are refused, and the unused link's code is unknown.
    const sessionCall = await api.call(`/channels/${org.orgId}`, { token: session.accessToken });
    const refresh = await api.call('/console-sessions/refresh', {
      method: 'POST',
      json: {},
      headers: { cookie: session.cookie },
    });
    const unused = await api.call('/console-sessions', { method: 'POST', json: { code: session.unused } });
    expect([sessionCall.status, refresh.status, unused.status]).toEqual([401, 401, 401]);
    expect(await unused.json()).toMatchObject({ reason: 'unknown' });
  });

  it('drops a job put back while the organisation was suspended once it is erased: its feed stays empty', async () => {
    const org = await newOrg('Put back');
    await cli(['org', 'suspend', '--org', org.orgId]);
    const queue = api.stack.queues.get('event-feed')!;
    const event = {
      'detail-type': 'report.completed',
      detail: {
        event_id: `evt_putback_${org.orgId.slice(0, 8)}`,
        organisation_id: org.orgId,
        timestamp: new Date().toISOString(),
        data: { organisation_id: org.orgId, report_id: 'rpt_putback', report_type: 'CHAT', row_count: 1 },
      },
    };
    queue.send(JSON.stringify(event));
    await eventually(() => {
      const [putBack] = queue.held().filter((message) => message.body.includes(org.orgId));
      if (!putBack || putBack.receiveCount > 0 || putBack.visibleAt < Date.now() + 250_000) throw new Error('not yet');
    });

    await cli(['org', 'delete', '--org', org.orgId, '--confirm', org.orgId, '--drain-seconds', '0']);
    await settle(org.orgId);

    // The put-back job came back (settle), was dropped, and was not put back again.
    expect(queue.held().filter((message) => message.body.includes(org.orgId))).toHaveLength(1);
    expect(await traces([org.orgId, org.clientId, org.channelId, event.detail.event_id])).toEqual({
      items: [],
      files: [],
    });
  });

  it('finishes the job when run again after a crash at any step of the one before', async () => {
    const org = await newOrg('Crashing');
    const group = await groupOf(org);
    const webhook = await api.call(`/webhooks/${org.orgId}`, {
      method: 'POST',
      token: org.token,
      json: { url: 'http://127.0.0.1:9/hooks', events: ['report.completed'] },
    });
    const { webhookId } = (await webhook.json()) as { webhookId: string };
    const requested = await api.call(`/reports/${org.orgId}`, {
      method: 'POST',
      token: org.token,
      json: { reportType: 'CHAT' },
    });
    const { reportId } = (await requested.json()) as { reportId: string };
    await eventually(async () => expect((await traces([reportId])).files).toHaveLength(1));
    await settle(org.orgId);
    const ids = [org.orgId, org.clientId, org.channelId, group.chatId, group.requestId, webhookId, reportId];
    const { db, tableName } = table();
    const real = new DynamoOrgAdminStore(db, tableName);

    // One run per step: each dies right after the nth call of that port has done its work, and the next goes on from
    // what it left. The organisation stays refused throughout.
    const crashes: [string, number][] = [
      ['markDeleting', 1],
      ['files.list', 1],
      ['files.delete', 1],
      ['deleteItems', 3],
      ['findItems', 1],
      ['definingItems', 1],
      ['deleteItems', 2],
      ['deleteStatusCopy', 1],
    ];
    for (const [crashIn, nth] of crashes) {
      const seen = new Map<string, number>();
      const step = async <T>(name: string, call: () => Promise<T>): Promise<T> => {
        const result = await call();
        seen.set(name, (seen.get(name) ?? 0) + 1);
        if (name === crashIn && seen.get(name) === nth) throw new Error(`crash after ${name} #${nth}`);
        return result;
      };
      const store: OrgEraseStore = {
        markDeleting: (orgId, at) => step('markDeleting', () => real.markDeleting(orgId, at)),
        findItems: (orgId, onPage) => step('findItems', () => real.findItems(orgId, onPage)),
        definingItems: (orgId) => step('definingItems', () => real.definingItems(orgId)),
        deleteItems: (keys) => step('deleteItems', () => real.deleteItems(keys)),
        deleteStatusCopy: (orgId) => step('deleteStatusCopy', () => real.deleteStatusCopy(orgId)),
      };
      const bucket = files();
      const crashingFiles: OrgFiles = {
        list: (prefix) => step('files.list', () => bucket.list(prefix)),
        delete: (key) => step('files.delete', () => bucket.delete(key)),
      };

      const run = eraseOrg({ clock: systemClock, store, files: crashingFiles, drainSeconds: 0 }, { orgId: org.orgId });

      await expect(run).rejects.toThrow(`crash after ${crashIn} #${nth}`);
      expect((await api.call(`/channels/${org.orgId}`, { token: org.token })).status).toBe(401);
    }
    db.destroy();
    const again = await cli(['org', 'delete', '--org', org.orgId, '--confirm', org.orgId, '--drain-seconds', '0']);

    // The last crash came after everything was gone: the command finds nothing left, and says so.
    expect(again).toEqual({ orgId: org.orgId, erased: {} });
    expect(await traces(ids)).toEqual({ items: [], files: [] });
  });
});
