import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand, DynamoDBClient, GetItemCommand, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { GetQueueAttributesCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AwsGateway } from '#infra/cdk-local/aws-gateway';
import { TemplateHttpApi } from '#infra/cdk-local/http-api';
import { IamLedger } from '#infra/cdk-local/iam-ledger';
import { TemplatePolicies } from '#infra/cdk-local/policies';
import { AwsServices } from '#infra/cdk-local/services';
import { type DeploymentContext, physicalResources, type Template, TemplateResolver } from '#infra/cdk-local/template';
import { AwsEmulator } from '#infra/local/aws-emulator';
import type { PutEventsEntry } from '#infra/local/bus';
import { LocalQueue } from '#infra/local/queue';
import { type RunningServer, startDynamo, startS3, waitForActiveTable } from '#infra/local/servers';
import { type LocalCredentials, newLocalCredentials, newSessionCredentials } from '#infra/local/sigv4';
import { GRAPH_VERSION, WhatsAppSimulator } from '#infra/local/simulator/server';
import { startLocalStack } from '#infra/local/stack';
import { NodeSha256, S3Rest } from '#shared/adapters/s3/s3-rest';
import { TEST_STACK_ENV } from '#test/support/local-stack';

/**
 * CONTRACT §21: every local endpoint refuses a request carrying `Origin` or a `Host` other than its loopback name and
 * port, every AWS-protocol endpoint refuses a request not signed with the local key, and the keys are fresh for each
 * run. The issue: an unsigned PutEvents with a foreign Origin and Host made an organisation's receiver get a forged
 * `group.created`; start:cdk's gateway checked no signature, Origin or Host (an unsigned request got the JWT private
 * key set), its keys were fixed, and `GET /_local/iam` answered anyone.
 */

const REGION = 'eu-west-1';
const ACCOUNT = '000000000000';
const PAGE = 'https://evil.example';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Sends a request over loopback with exactly these headers (fetch would not let a test set Host or Origin). */
function send(url: string, init: { method: string; headers: Record<string, string>; body?: string }): Promise<Answer> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      { host: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, ...init },
      (incoming) => {
        let text = '';
        incoming.on('data', (chunk: Buffer) => {
          text += chunk.toString('utf8');
        });
        incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body: text }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(init.body);
  });
}

/**
 * An AWS JSON request to `endpoint`, SigV4-signed with `credentials` as the SDK signs it; `host` is the Host it is
 * signed for and sent with (a DNS-rebinding page's name: the signature then holds for that Host).
 */
async function signedJson(
  endpoint: string,
  options: {
    service: string;
    target: string;
    body: unknown;
    credentials: LocalCredentials & { sessionToken?: string };
    host?: string;
    version?: '1.0' | '1.1';
  },
): Promise<{ method: string; headers: Record<string, string>; body: string }> {
  const url = new URL(endpoint);
  const host = options.host ?? url.host;
  const body = JSON.stringify(options.body);
  const signer = new SignatureV4({
    service: options.service,
    region: REGION,
    credentials: options.credentials,
    sha256: NodeSha256,
  });
  const signed = await signer.sign({
    method: 'POST',
    protocol: 'http:',
    hostname: host.split(':')[0]!,
    port: Number(url.port),
    path: '/',
    headers: {
      host,
      'content-type': `application/x-amz-json-${options.version ?? '1.1'}`,
      'x-amz-target': options.target,
    },
    body,
  });
  return { method: 'POST', headers: signed.headers, body };
}

/** The headers without the signature: what a page, or anyone without the key, can send. */
const unsigned = (headers: Record<string, string>) => {
  const { authorization: _a, 'x-amz-date': _d, 'x-amz-security-token': _t, ...rest } = headers;
  return rest;
};

/** The reports bucket at `endpoint`, signed with `credentials`. */
const bucket = (endpoint: string, credentials: LocalCredentials & { sessionToken?: string }) =>
  new S3Rest(
    { bucket: 'reports', region: REGION, endpoint },
    { credentials: async () => credentials, requestTimeoutMs: 5_000, maxAttempts: 1 },
  );

/** Stores a report file as the stack's handlers do. */
async function storeReport(endpoint: string, credentials: LocalCredentials, body: string) {
  const answer = await bucket(endpoint, credentials).send({
    method: 'PUT',
    key: 'org/report.csv',
    headers: { 'content-type': 'text/csv' },
    body,
  });
  if (answer.status !== 200) throw new Error(`PUT report: ${answer.status} ${answer.text}`);
}

const errorType = (answer: Answer) => (JSON.parse(answer.body || '{}') as { __type?: string }).__type;

const rejection = (work: Promise<unknown>) =>
  work.then(
    () => {
      throw new Error('the call succeeded');
    },
    (error: Error & { $metadata?: { httpStatusCode?: number } }) => error,
  );

/** What a web page would make an organisation's receiver get: a `group.created` on the service's bus. */
const forgedEvent = {
  Entries: [
    {
      Source: 'wp-crm',
      DetailType: 'group.created',
      Detail: JSON.stringify({ orgId: 'org-b', groupId: 'forged' }),
      EventBusName: 'default',
    },
  ],
};

describe('the SQS / EventBridge emulator (both stacks)', () => {
  const key = newLocalCredentials();
  const queue = new LocalQueue('group-requests', { visibilityTimeoutSeconds: 30 });
  const put = vi.fn((entries: PutEventsEntry[]) => entries.map(() => ({ EventId: randomUUID() })));
  const emulator = new AwsEmulator(new Map([[queue.name, queue]]), { put }, key);
  let endpoint = '';
  const events = (credentials: LocalCredentials) =>
    new EventBridgeClient({ region: REGION, endpoint, credentials, maxAttempts: 1 });
  const sqs = (credentials: LocalCredentials) =>
    new SQSClient({ region: REGION, endpoint, credentials, maxAttempts: 1 });

  beforeAll(async () => {
    endpoint = await emulator.listen();
  });
  afterAll(() => emulator.close());

  const putEvents = (options: { host?: string; credentials?: LocalCredentials } = {}) =>
    signedJson(endpoint, {
      service: 'events',
      target: 'AWSEvents.PutEvents',
      body: forgedEvent,
      credentials: options.credentials ?? key,
      host: options.host,
    });

  it("refuses the issue's forged PutEvents: unsigned, with a web page's Origin and a foreign Host", async () => {
    const signed = await putEvents();
    const port = new URL(endpoint).port;

    const forged = await send(endpoint, {
      method: 'POST',
      headers: { ...unsigned(signed.headers), origin: PAGE, host: `evil.example:${port}` },
      body: signed.body,
    });

    expect(forged.status).toBe(403);
    expect(put).not.toHaveBeenCalled();
  });

  it('refuses an unsigned PutEvents and an unsigned SendMessage', async () => {
    const signed = await putEvents();
    const message = await signedJson(endpoint, {
      service: 'sqs',
      target: 'AmazonSQS.SendMessage',
      body: { QueueUrl: emulator.queueUrl(queue.name), MessageBody: '{"forged":true}' },
      credentials: key,
      version: '1.0',
    });

    const bareEvent = await send(endpoint, { method: 'POST', headers: unsigned(signed.headers), body: signed.body });
    const bareMessage = await send(endpoint, {
      method: 'POST',
      headers: unsigned(message.headers),
      body: message.body,
    });

    expect([bareEvent.status, errorType(bareEvent)]).toEqual([403, 'MissingAuthenticationTokenException']);
    expect([bareMessage.status, bareMessage.headers['x-amzn-query-error']]).toEqual([
      403,
      'MissingAuthenticationToken;Sender',
    ]);
    expect(put).not.toHaveBeenCalled();
    expect(queue.counts().visible).toBe(0);
  });

  it('refuses a request signed with another key, or with its key id and a guessed secret, as the SDKs parse it', async () => {
    const other = newLocalCredentials();
    const guessed = { accessKeyId: key.accessKeyId, secretAccessKey: 'guessed' };
    const message = new SendMessageCommand({ QueueUrl: emulator.queueUrl(queue.name), MessageBody: 'forged' });

    const errors = await Promise.all([
      rejection(events(other).send(new PutEventsCommand(forgedEvent))),
      rejection(events(guessed).send(new PutEventsCommand(forgedEvent))),
      rejection(sqs(other).send(message)),
      rejection(sqs(guessed).send(message)),
    ]);

    expect(errors.map((error) => [error.name, error.$metadata?.httpStatusCode])).toEqual([
      ['UnrecognizedClientException', 403],
      ['InvalidSignatureException', 403],
      ['InvalidClientTokenId', 403],
      ['SignatureDoesNotMatch', 403],
    ]);
    expect(put).not.toHaveBeenCalled();
    expect(queue.counts().visible).toBe(0);
  });

  it('refuses a correctly signed request that carries an Origin header (a web page)', async () => {
    const signed = await putEvents();

    const fromPage = await send(endpoint, {
      method: 'POST',
      headers: { ...signed.headers, origin: PAGE },
      body: signed.body,
    });

    expect([fromPage.status, errorType(fromPage)]).toEqual([403, 'AccessDeniedException']);
    expect(fromPage.headers['access-control-allow-origin']).toBeUndefined();
    expect(put).not.toHaveBeenCalled();
  });

  it('refuses a request signed for a foreign Host (DNS rebinding)', async () => {
    const port = new URL(endpoint).port;
    const signed = await putEvents({ host: `evil.example:${port}` });

    const rebound = await send(endpoint, { method: 'POST', headers: signed.headers, body: signed.body });

    expect([rebound.status, errorType(rebound)]).toEqual([403, 'AccessDeniedException']);
    expect(put).not.toHaveBeenCalled();
  });

  it("serves the stack's own clients, signed with the stack's key of this run", async () => {
    const published = await events(key).send(new PutEventsCommand(forgedEvent));
    await sqs(key).send(new SendMessageCommand({ QueueUrl: emulator.queueUrl(queue.name), MessageBody: 'job' }));
    const { Attributes } = await sqs(key).send(
      new GetQueueAttributesCommand({ QueueUrl: emulator.queueUrl(queue.name), AttributeNames: ['All'] }),
    );

    expect(published.FailedEntryCount).toBe(0);
    expect(put).toHaveBeenCalledTimes(1);
    expect(Attributes?.ApproximateNumberOfMessages).toBe('1');
  });
});

describe('the embedded DynamoDB and S3 servers, guarded with a key of this run', () => {
  const key = newLocalCredentials();
  let dynamo: RunningServer;
  let s3: RunningServer;
  let directory = '';

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'wpcrm-guard-'));
    dynamo = await startDynamo({ port: 0, guarded: key });
    s3 = await startS3({ port: 0, directory, bucket: 'reports', guarded: key });
    await storeReport(s3.endpoint, key, 'bookingId,secret\n1,yes\n');
  });
  afterAll(async () => {
    await dynamo.close();
    await s3.close();
    await rm(directory, { recursive: true, force: true });
  });

  const listTables = (options: { credentials?: LocalCredentials; host?: string } = {}) =>
    signedJson(dynamo.endpoint, {
      service: 'dynamodb',
      target: 'DynamoDB_20120810.ListTables',
      body: {},
      credentials: options.credentials ?? key,
      host: options.host,
      version: '1.0',
    });

  it('DynamoDB: refuses unsigned, another key, a guessed secret, an Origin and a foreign Host; serves its key', async () => {
    const signed = await listTables();
    const other = await listTables({ credentials: newLocalCredentials() });
    const guessed = await listTables({ credentials: { accessKeyId: key.accessKeyId, secretAccessKey: 'guessed' } });
    const rebound = await listTables({ host: `evil.example:${dynamo.port}` });

    const answers = await Promise.all([
      send(dynamo.endpoint, { method: 'POST', headers: unsigned(signed.headers), body: signed.body }),
      send(dynamo.endpoint, other),
      send(dynamo.endpoint, guessed),
      send(dynamo.endpoint, { method: 'POST', headers: { ...signed.headers, origin: PAGE }, body: signed.body }),
      send(dynamo.endpoint, rebound),
    ]);
    const served = await new DynamoDBClient({ region: REGION, endpoint: dynamo.endpoint, credentials: key }).send(
      new ListTablesCommand({}),
    );

    expect(answers.map((answer) => answer.status)).toEqual([403, 403, 403, 403, 403]);
    expect(answers.every((answer) => !answer.body.includes('TableNames'))).toBe(true);
    expect(served.TableNames).toEqual([]);
  });

  it('S3: refuses a report file unsigned, pre-signed with another key or a guessed secret, from a page or a foreign Host', async () => {
    const url = (credentials: LocalCredentials) =>
      bucket(s3.endpoint, credentials).presignGet('org/report.csv', {}, 60);
    const host = new URL(s3.endpoint).host;
    const good = await url(key);

    const answers = await Promise.all([
      send(good.split('?')[0]!, { method: 'GET', headers: { host } }),
      send(await url(newLocalCredentials()), { method: 'GET', headers: { host } }),
      send(await url({ accessKeyId: key.accessKeyId, secretAccessKey: 'guessed' }), {
        method: 'GET',
        headers: { host },
      }),
      send(good, { method: 'GET', headers: { host, origin: PAGE } }),
      send(good, { method: 'GET', headers: { host: `evil.example:${s3.port}` } }),
    ]);
    const served = await send(good, { method: 'GET', headers: { host } });

    expect(answers.map((answer) => answer.status)).toEqual([403, 403, 403, 403, 403]);
    expect(answers.every((answer) => !answer.body.includes('secret'))).toBe(true);
    expect([served.status, served.body]).toEqual([200, 'bookingId,secret\n1,yes\n']);
  });
});

/** One function whose role may read the table, publish to the bus, read the reports bucket and the JWT keys. */
const template: Template = {
  Resources: {
    Table: {
      Type: 'AWS::DynamoDB::Table',
      Properties: {
        KeySchema: [{ AttributeName: 'PK', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'PK', AttributeType: 'S' }],
        BillingMode: 'PAY_PER_REQUEST',
      },
    },
    FnRole: {
      Type: 'AWS::IAM::Role',
      Properties: {
        AssumeRolePolicyDocument: {
          Version: '2012-10-17',
          Statement: [{ Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' }, Action: 'sts:AssumeRole' }],
        },
      },
    },
    FnRolePolicy: {
      Type: 'AWS::IAM::Policy',
      Properties: {
        PolicyName: 'FnRolePolicy',
        Roles: [{ Ref: 'FnRole' }],
        PolicyDocument: {
          Version: '2012-10-17',
          Statement: [
            { Effect: 'Allow', Action: 'dynamodb:GetItem', Resource: { 'Fn::GetAtt': ['Table', 'Arn'] } },
            { Effect: 'Allow', Action: 'events:PutEvents', Resource: '*' },
            { Effect: 'Allow', Action: 's3:GetObject', Resource: 'arn:aws:s3:::reports/*' },
            {
              Effect: 'Allow',
              Action: 'secretsmanager:GetSecretValue',
              Resource: 'arn:aws:secretsmanager:*:*:secret:wp-crm/dev/jwt-keys-*',
            },
          ],
        },
      },
    },
    Fn: {
      Type: 'AWS::Lambda::Function',
      Properties: { Role: { 'Fn::GetAtt': ['FnRole', 'Arn'] }, Handler: 'index.handler' },
    },
  },
};

describe("start:cdk's AWS gateway", () => {
  const ctx: DeploymentContext = {
    stackName: 'WpCrm-dev-Service',
    region: REGION,
    account: ACCOUNT,
    awsEndpoint: 'http://127.0.0.1:1',
    apiOrigin: 'http://127.0.0.1:1',
  };
  const physical = physicalResources(template, ctx);
  const tableName = physical.get('Table')!.ref;
  /** The stack's key of this run: the backends answer only it, the gateway forwards with it. */
  const local = newLocalCredentials();
  /** The function's session of this run, as its processes get it in their environment. */
  const session = newSessionCredentials();
  const put = vi.fn((entries: PutEventsEntry[]) => entries.map(() => ({ EventId: randomUUID() })));
  const emulator = new AwsEmulator(new Map(), { put }, local);
  const ledger = new IamLedger('enforce');
  const services = new AwsServices(undefined, REGION, ACCOUNT);
  const jwtKeysArn = `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:wp-crm/dev/jwt-keys-AbCdEf`;
  services.ensureSecret(jwtKeysArn, JSON.stringify({ privateKey: 'THE-PRIVATE-KEY' }));
  let dynamo: RunningServer;
  let s3: RunningServer;
  let directory = '';
  let gateway: AwsGateway;
  let endpoint = '';

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'wpcrm-gateway-guard-'));
    dynamo = await startDynamo({ port: 0, guarded: local });
    s3 = await startS3({ port: 0, directory, bucket: 'reports', guarded: local });
    const emulatorUrl = await emulator.listen();
    const admin = new DynamoDBClient({ region: REGION, endpoint: dynamo.endpoint, credentials: local });
    await admin.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [{ AttributeName: 'PK', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'PK', AttributeType: 'S' }],
      }),
    );
    await waitForActiveTable(admin, tableName);
    admin.destroy();
    await storeReport(s3.endpoint, local, 'bookingId\n1\n');
    const policies = new TemplatePolicies(template, new TemplateResolver(ctx, physical), physical, {
      defaultRegion: REGION,
      account: ACCOUNT,
      secretArn: (id) => services.secretArn(id),
    });
    ledger.register('Fn', policies.grantedPairs('Fn'));
    gateway = new AwsGateway(
      policies,
      ledger,
      () => ({
        dynamodb: dynamo.endpoint,
        s3: s3.endpoint,
        sqsAndEvents: emulatorUrl,
        localCredentials: local,
        services,
        invoke: async () => ({ payload: 'null' }),
      }),
      ACCOUNT,
    );
    gateway.addPrincipal(session.accessKeyId, policies.sessionFor('Fn', session.accessKeyId, 'Fn-session'), session);
    endpoint = await gateway.listen();
  });
  afterAll(async () => {
    await gateway.close();
    await emulator.close();
    await dynamo.close();
    await s3.close();
    await rm(directory, { recursive: true, force: true });
  });

  const getItem = (options: { credentials?: LocalCredentials & { sessionToken?: string }; host?: string } = {}) =>
    signedJson(endpoint, {
      service: 'dynamodb',
      target: 'DynamoDB_20120810.GetItem',
      body: { TableName: tableName, Key: { PK: { S: 'JWKS' } } },
      credentials: options.credentials ?? session,
      host: options.host,
      version: '1.0',
    });
  const dynamoAs = (credentials: LocalCredentials & { sessionToken?: string }) =>
    new DynamoDBClient({ region: REGION, endpoint, credentials, maxAttempts: 1 });

  it("refuses the JWT private key set to an unsigned request, and to one naming the function's key with a forged signature", async () => {
    const getKeys = (credentials: LocalCredentials & { sessionToken?: string }) =>
      signedJson(endpoint, {
        service: 'secretsmanager',
        target: 'secretsmanager.GetSecretValue',
        body: { SecretId: 'wp-crm/dev/jwt-keys' },
        credentials,
      });
    const signed = await getKeys(session);
    const forged = await getKeys({ ...session, secretAccessKey: 'guessed' });

    const bare = await send(endpoint, { method: 'POST', headers: unsigned(signed.headers), body: signed.body });
    const named = await send(endpoint, forged);
    const own = await send(endpoint, signed);

    // AWS's JSON services answer an authentication failure with 400, as DynamoDB does.
    expect([bare.status, errorType(bare)]).toEqual([400, 'MissingAuthenticationTokenException']);
    expect([named.status, errorType(named)]).toEqual([400, 'InvalidSignatureException']);
    expect(bare.body + named.body).not.toContain('THE-PRIVATE-KEY');
    expect(own.status).toBe(200);
    expect(own.body).toContain('THE-PRIVATE-KEY');
  });

  it("refuses a request signed with an unknown key, with the function's key id and a guessed secret, or with another session's token", async () => {
    const command = new GetItemCommand({ TableName: tableName, Key: { PK: { S: 'JWKS' } } });

    const errors = await Promise.all([
      rejection(dynamoAs(newSessionCredentials()).send(command)),
      rejection(dynamoAs(local).send(command)),
      rejection(dynamoAs({ ...session, secretAccessKey: 'guessed' }).send(command)),
      rejection(dynamoAs({ ...session, sessionToken: 'another-session' }).send(command)),
    ]);

    expect(errors.map((error) => error.name)).toEqual([
      'UnrecognizedClientException',
      'UnrecognizedClientException',
      'InvalidSignatureException',
      'UnrecognizedClientException',
    ]);
    expect(ledger.deniedCount).toBe(0);
  });

  it('refuses a correctly signed request from a web page (Origin) or for a foreign Host', async () => {
    const signed = await getItem();
    const rebound = await getItem({ host: `evil.example:${new URL(endpoint).port}` });

    const fromPage = await send(endpoint, {
      method: 'POST',
      headers: { ...signed.headers, origin: PAGE },
      body: signed.body,
    });
    const foreign = await send(endpoint, rebound);

    expect([fromPage.status, errorType(fromPage)]).toEqual([400, 'AccessDeniedException']);
    expect([foreign.status, errorType(foreign)]).toEqual([400, 'AccessDeniedException']);
    expect(fromPage.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('refuses a pre-signed S3 URL made with a guessed secret, and serves the function’s own', async () => {
    const presign = (credentials: LocalCredentials & { sessionToken?: string }) =>
      bucket(endpoint, credentials).presignGet('org/report.csv', {}, 60);

    const forged = await fetch(await presign({ ...session, secretAccessKey: 'guessed' }));
    const own = await fetch(await presign(session));

    expect(forged.status).toBe(403);
    expect(await forged.text()).toContain('<Code>SignatureDoesNotMatch</Code>');
    expect([own.status, await own.text()]).toEqual([200, 'bookingId\n1\n']);
  });

  it("serves the function's own signed calls, forwarding them to the embedded servers with the stack's key", async () => {
    const read = await dynamoAs(session).send(new GetItemCommand({ TableName: tableName, Key: { PK: { S: 'JWKS' } } }));
    const published = await new EventBridgeClient({
      region: REGION,
      endpoint,
      credentials: session,
      maxAttempts: 1,
    }).send(new PutEventsCommand(forgedEvent));

    expect(read.$metadata.httpStatusCode).toBe(200);
    expect(published.FailedEntryCount).toBe(0);
    expect(put).toHaveBeenCalledTimes(1);
    expect(ledger.deniedCount).toBe(0);
  });
});

describe("start:cdk's GET /_local/iam", () => {
  const token = 'token-of-this-run';
  const api = new TemplateHttpApi({
    apiId: 'abc123',
    routes: [],
    localRoutes: { '/_local/iam': () => ({ functions: { Fn: { denied: [], unused: [] } } }) },
    localRoutesToken: token,
  });
  let origin = '';
  let host = '';

  beforeAll(async () => {
    const port = await api.listen(0);
    origin = `http://127.0.0.1:${port}`;
    host = `127.0.0.1:${port}`;
  });
  afterAll(() => api.close());

  const get = (headers: Record<string, string>) => send(`${origin}/_local/iam`, { method: 'GET', headers });

  it('refuses a request without the token of this run, or with another one', async () => {
    const none = await get({ host });
    const other = await get({ host, authorization: 'Bearer token-of-another-run' });

    expect([none.status, other.status]).toEqual([401, 401]);
    expect(none.body).not.toContain('functions');
    expect(JSON.parse(none.body)).toEqual({ message: expect.stringContaining('localRoutesToken') });
  });

  it('refuses a request from a web page (Origin) or for a foreign Host, even with the token', async () => {
    const authorization = `Bearer ${token}`;

    const fromPage = await get({ host, authorization, origin: PAGE });
    const rebound = await get({ host: `evil.example:${new URL(origin).port}`, authorization });

    expect([fromPage.status, rebound.status]).toEqual([403, 403]);
    expect(fromPage.body + rebound.body).not.toContain('functions');
    expect(fromPage.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers the local operator: loopback, no Origin, the token of this run', async () => {
    const answer = await get({ host, authorization: `Bearer ${token}` });
    const viaLocalhost = await get({ host: `localhost:${new URL(origin).port}`, authorization: `Bearer ${token}` });

    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ functions: { Fn: { denied: [], unused: [] } } });
    expect(viaLocalhost.status).toBe(200);
  });
});

describe('the keys of a local stack are fresh for each run and only in its stack.json', () => {
  it("writes the run's key to stack.json (mode 0600), and a key of an earlier run opens nothing", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'wpcrm-keys-'));
    const env = { ...process.env, ...TEST_STACK_ENV, WPCRM_DATA_DIR: dataDir };
    try {
      const first = await startLocalStack({ env, seed: false });
      const firstFile = JSON.parse(await readFile(join(dataDir, 'stack.json'), 'utf8')) as {
        credentials: LocalCredentials;
      };
      const mode = (await stat(join(dataDir, 'stack.json'))).mode & 0o777;
      await first.close();
      const second = await startLocalStack({ env, seed: false });
      try {
        const secondFile = JSON.parse(await readFile(join(dataDir, 'stack.json'), 'utf8')) as {
          credentials: LocalCredentials;
        };
        const tables = (credentials: LocalCredentials) =>
          new DynamoDBClient({
            region: REGION,
            endpoint: second.info.endpoints.dynamodb,
            credentials,
            maxAttempts: 1,
          }).send(new ListTablesCommand({}));
        const publish = (credentials: LocalCredentials) =>
          new EventBridgeClient({
            region: REGION,
            endpoint: second.info.endpoints.eventbridge,
            credentials,
            maxAttempts: 1,
          }).send(new PutEventsCommand(forgedEvent));

        const stale = await Promise.all([
          rejection(tables(firstFile.credentials)),
          rejection(publish(firstFile.credentials)),
        ]);
        const current = await tables(secondFile.credentials);

        expect(mode).toBe(0o600);
        expect(firstFile.credentials).toEqual(first.info.credentials);
        expect(secondFile.credentials).toEqual(second.info.credentials);
        expect(secondFile.credentials.accessKeyId).not.toBe(firstFile.credentials.accessKeyId);
        expect(secondFile.credentials.secretAccessKey).not.toBe(firstFile.credentials.secretAccessKey);
        expect(secondFile.credentials.secretAccessKey.length).toBeGreaterThanOrEqual(40);
        expect(stale.map((error) => error.name)).toEqual(['AccessDeniedException', 'UnrecognizedClientException']);
        expect(current.TableNames).toContain(second.info.tableName);
      } finally {
        await second.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe("the WhatsApp simulator (it signs what it sends with the stack's app secret)", () => {
  let simulator: WhatsAppSimulator;
  let origin = '';
  beforeAll(async () => {
    simulator = new WhatsAppSimulator({ appSecret: 'x'.repeat(32), webhookUrl: 'http://127.0.0.1:9/hook' });
    origin = `http://127.0.0.1:${await simulator.listen(0)}`;
  });
  afterAll(async () => {
    await simulator.close();
  });
  const groups = (headers: Record<string, string>) =>
    send(`${origin}/${GRAPH_VERSION}/100000000000001/groups`, {
      method: 'GET',
      headers: { authorization: 'Bearer token', ...headers },
    });

  it("refuses a web page's request (Origin) and a DNS-rebinding Host, to its control API and its Graph API alike", async () => {
    const port = new URL(origin).port;
    const fromPage = await groups({ host: `127.0.0.1:${port}`, origin: PAGE });
    const rebound = await groups({ host: `evil.example:${port}` });
    const control = await send(`${origin}/_simulator/state`, {
      method: 'GET',
      headers: { host: `127.0.0.1:${port}`, origin: PAGE },
    });
    const local = await groups({ host: `127.0.0.1:${port}` });

    expect([fromPage.status, rebound.status, control.status]).toEqual([403, 403, 403]);
    expect(local.status).toBe(200);
  });
});
