import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CreateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { ListQueuesCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { main } from '#bin/cli/main';
import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { S3OrgFiles } from '#shared/adapters/s3/org-files';
import { S3Rest } from '#shared/adapters/s3/s3-rest';
import { REPORT_TYPES } from '#shared/domain/reports/records';
import { eventually } from '#test/support/eventually';
import { useReceiver } from '#test/support/receiver';
import { call, dataDir, localDeployment } from './target.ts';

type Json = Record<string, unknown>;
type Key = { accessKeyId: string; secretAccessKey: string };

interface StackFile {
  tableName: string;
  reportsBucket: string;
  endpoints: { dynamodb: string; s3: string; aws: string; sqs: string };
  credentials: Key;
  operator: { credentials: Key & { sessionToken: string } };
}

/**
 * `org delete` against the synthesized template under start:cdk, IAM enforced (CONTRACT §17, issue 34): the
 * organisation keeps writing while it runs; afterwards a scan of the table, the bucket and the secret store finds
 * nothing of it. The channel's token lives in the emulated Secrets Manager, created and deleted through the AWS
 * gateway with the operator's session of the template's ChannelTokensRole (global-setup fails on any denied call).
 */
describe('org delete under start:cdk', () => {
  const stack = JSON.parse(readFileSync(join(dataDir, 'stack.json'), 'utf8')) as StackFile;
  const deployment = localDeployment();
  const receiver = useReceiver();

  const wpcrm = async (args: string[], onErr: (line: string) => void = () => undefined) => {
    let stdout = '';
    let stderr = '';
    const err = (line: string) => {
      stderr += `${line}\n`;
      onErr(line);
    };
    const status = await main(args, { out: (line) => (stdout += line), err }, { WPCRM_DATA_DIR: dataDir });
    if (status !== 0) throw new Error(`wpcrm ${args.join(' ')}: ${status} ${stderr}`);
    return JSON.parse(stdout) as Json;
  };

  /** A channel token secret, made as an operator makes one: with the ChannelTokensRole, under the stage's prefix. */
  async function channelSecret(orgId: string): Promise<{ name: string; arn: string }> {
    const secrets = new SecretsManagerClient({
      region: 'eu-west-1',
      endpoint: stack.endpoints.aws,
      credentials: stack.operator.credentials,
    });
    // Under its organisation, where the tenant-access role reads a channel's token (CONTRACT §25).
    const name = `wp-crm/dev/channels/${orgId}/e2e-erasure-${randomUUID()}`;
    const { ARN } = await secrets.send(new CreateSecretCommand({ Name: name, SecretString: 'e2e-simulator-token' }));
    secrets.destroy();
    return { name, arn: ARN! };
  }

  /** Every item and file naming one of `ids` (a scan of the whole table and bucket), and the secrets named `secret`. */
  async function traces(ids: string[], secret: string) {
    const db = createDocumentClient({
      region: 'eu-west-1',
      endpoint: stack.endpoints.dynamodb,
      credentials: stack.credentials,
    });
    const items: string[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await db.send(new ScanCommand({ TableName: stack.tableName, ExclusiveStartKey }));
      for (const item of page.Items ?? []) items.push(JSON.stringify(item));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    db.destroy();
    const bucket = new S3OrgFiles(
      new S3Rest(
        { bucket: stack.reportsBucket, region: 'eu-west-1', endpoint: stack.endpoints.s3 },
        { credentials: async () => stack.credentials, requestTimeoutMs: 10_000 },
      ),
    );
    const keys = await bucket.list('');
    // The emulated Secrets Manager's whole state, as start:cdk keeps it in its data dir.
    const store = JSON.parse(readFileSync(join(dataDir, 'aws-services.json'), 'utf8')) as { secrets: Json[] };
    return {
      items: items.filter((item) => ids.some((id) => item.includes(id))),
      files: keys.filter((key) => ids.some((id) => key.includes(id))),
      secrets: store.secrets.filter((stored) => JSON.stringify(stored).includes(secret)),
    };
  }

  async function busyOrg() {
    const { orgId } = (await wpcrm(['org', 'create', '--name', 'E2E erased'])) as { orgId: string };
    const { clientId, clientSecret } = (await wpcrm([
      'credential',
      'create',
      '--org',
      orgId,
      '--roles',
      'CRM_ADMIN',
    ])) as {
      clientId: string;
      clientSecret: string;
    };
    const secret = await channelSecret(orgId);
    const { channelId } = (await wpcrm([
      ...['channel', 'create', '--org', orgId, '--name', 'Erased WhatsApp', '--type', 'MESSAGING_OFFICIAL'],
      ...['--phone', '+4915100000501', '--official-business-account', 'true', '--phone-number-id', '200000000000501'],
      ...['--access-token-secret-id', secret.arn],
    ])) as { channelId: string };
    await wpcrm(['data', 'generate', '--org', orgId, '--scale', '1']);
    const issued = await call('/token', { method: 'POST', json: { clientId, clientSecret } });
    const { accessToken: token } = (await issued.json()) as { accessToken: string };
    // A group, made through the channel's token in Secrets Manager, with a member to write to.
    const requested = await call(`/groups/${orgId}`, {
      method: 'POST',
      token,
      headers: { 'idempotency-key': `e2e-erasure-${orgId}` },
      json: { channelId, subject: 'Erased crew' },
    });
    const { requestId } = (await requested.json()) as { requestId: string };
    const { chatId } = await eventually(
      async () => {
        const status = (await (await call(`/groups/${orgId}/creation-status/${requestId}`, { token })).json()) as Json;
        expect(status.status).toBe('created');
        return status as { chatId: string };
      },
      { timeoutMs: 60_000 },
    );
    const group = (await (await call(`/groups/${orgId}/${chatId}`, { token })).json()) as Json;
    await deployment.simulator(`/groups/${group.externalChatId as string}/join`, { waId: '4915112345678' });
    // A console session (CONTRACT §24) and a link not used yet, in the organisation's console partition.
    const link = async () => {
      const created = await call(`/console-links/${orgId}`, { method: 'POST', token, json: {} });
      return new URL(((await created.json()) as { url: string }).url).hash.replace('#code=', '');
    };
    const signedIn = await call('/console-sessions', { method: 'POST', json: { code: await link() } });
    expect(signedIn.status).toBe(201);
    const cookie = signedIn.headers.get('set-cookie')!.split(';')[0]!;
    const { accessToken: consoleToken } = (await signedIn.json()) as { accessToken: string };
    const consoleSession = { cookie, sessionId: cookie.split('.')[1]!, token: consoleToken, unused: await link() };
    return { orgId, clientId, clientSecret, channelId, token, secret, chatId, requestId, console: consoleSession };
  }

  it('leaves nothing of a busy organisation in the table, the bucket or the secret store; 401 from its first step', async () => {
    const org = await busyOrg();
    const ids = new Set([org.orgId, org.clientId, org.channelId, org.chatId, org.requestId, org.console.sessionId]);
    const sent: { at: number; status: number; what: string }[] = [];
    let round = 0;
    const send = async (what: string, path: string, init: RequestInit & { json?: unknown }) => {
      const at = performance.now();
      const response = await call(path, { ...init, token: org.token });
      sent.push({ at, status: response.status, what });
      if (!response.ok) return;
      for (const [field, value] of Object.entries((await response.json()) as Json)) {
        if (field.endsWith('Id') && typeof value === 'string') ids.add(value);
      }
    };
    const writeRound = () => {
      round += 1;
      return Promise.all([
        send('subscription', `/webhooks/${org.orgId}`, {
          method: 'POST',
          json: { url: `${receiver.url}/erased/${round}`, events: ['*'] },
        }),
        send('report', `/reports/${org.orgId}`, {
          method: 'POST',
          json: { reportType: REPORT_TYPES[round % REPORT_TYPES.length] },
        }),
        send('group', `/groups/${org.orgId}`, {
          method: 'POST',
          headers: { 'idempotency-key': `e2e-race-${round}` },
          json: { channelId: org.channelId, subject: `Crew ${round}` },
        }),
        send('message', '/messaging/send-message', {
          method: 'POST',
          json: { chatId: org.chatId, text: `hello ${round}` },
        }),
      ]);
    };
    for (let warmUp = 0; warmUp < 2; warmUp += 1) await writeRound();
    expect((await traces([org.orgId], org.secret.name)).secrets).toHaveLength(1);
    let fencedAt = Number.POSITIVE_INFINITY;
    const atFence: Promise<Response>[] = [];
    let erasing = true;
    const writers = (async () => {
      while (erasing) await writeRound();
    })();

    const deleted = await wpcrm(
      ['org', 'delete', '--org', org.orgId, '--confirm', org.orgId, '--drain-seconds', '8'],
      (line) => {
        if (!line.includes('"draining"')) return;
        fencedAt = performance.now();
        atFence.push(
          call(`/channels/${org.orgId}`, { token: org.token }),
          call('/token', { method: 'POST', json: { clientId: org.clientId, clientSecret: org.clientSecret } }),
        );
      },
    );
    erasing = false;
    await writers;
    await writeRound();

    const [channels, token] = await Promise.all(atFence);
    expect([channels!.status, token!.status]).toEqual([401, 401]);
    const afterFence = sent.filter((request) => request.at > fencedAt);
    expect(afterFence.length).toBeGreaterThan(4);
    expect(afterFence.filter((request) => request.status !== 401)).toEqual([]);
    expect(
      new Set(sent.filter((request) => request.at < fencedAt && request.status < 300).map((request) => request.what)),
    ).toEqual(new Set(['subscription', 'report', 'group', 'message']));
    expect(deleted).toMatchObject({
      orgId: org.orgId,
      erased: expect.objectContaining({ channelSecrets: 1, consoleLinks: 2, consoleSessions: 1 }),
    });
    expect(await traces([...ids], org.secret.name)).toEqual({ items: [], files: [], secrets: [] });
    // The console session's token and cookie are refused, and the unused link's code is unknown.
    const refresh = await call('/console-sessions/refresh', {
      method: 'POST',
      json: {},
      headers: { cookie: org.console.cookie },
    });
    const unused = await call('/console-sessions', { method: 'POST', json: { code: org.console.unused } });
    const sessionCall = await call(`/channels/${org.orgId}`, { token: org.console.token });
    expect([sessionCall.status, refresh.status, unused.status]).toEqual([401, 401, 401]);
  }, 300_000);

  it('drops an event of the organisation that arrives after its erasure: its feed is not made again', async () => {
    const org = await busyOrg();
    await wpcrm(['org', 'delete', '--org', org.orgId, '--confirm', org.orgId, '--drain-seconds', '3']);
    const eventId = `evt_e2e_late_${org.orgId.slice(0, 8)}`;
    const sqs = new SQSClient({ region: 'eu-west-1', endpoint: stack.endpoints.sqs, credentials: stack.credentials });
    const { QueueUrls = [] } = await sqs.send(new ListQueuesCommand({}));
    const feedQueue = QueueUrls.find((url) => /EventFeed/.test(url) && !/DeadLetter/.test(url))!;
    const late = {
      'detail-type': 'report.completed',
      detail: {
        event_id: eventId,
        organisation_id: org.orgId,
        timestamp: new Date().toISOString(),
        data: { organisation_id: org.orgId, report_id: 'rpt_e2elate', report_type: 'CHAT', row_count: 1 },
      },
    };

    await sqs.send(new SendMessageCommand({ QueueUrl: feedQueue, MessageBody: JSON.stringify(late) }));
    await eventually(
      async () => {
        const status = (await wpcrm(['status'])) as { queues: { queue: string; depth: number; inFlight: number }[] };
        const feed = status.queues.find((queue) => queue.queue === 'event-feed')!;
        expect([feed.depth, feed.inFlight]).toEqual([0, 0]);
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    sqs.destroy();

    expect(await traces([org.orgId, eventId], org.secret.name)).toEqual({ items: [], files: [], secrets: [] });
  }, 300_000);
});
