import { existsSync, readFileSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { ListQueuesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { SignatureV4 } from '@smithy/signature-v4';
import { describe, expect, it } from 'vitest';
import { NodeSha256 } from '#shared/adapters/s3/s3-rest';
import { dataDir } from './target.ts';

interface CdkStackFile {
  deployment?: 'cdk';
  ports: { api: number };
  endpoints: { dynamodb: string; s3: string; aws: string; sqs: string };
  tableName: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  localRoutesToken: string;
}

const stackFile = join(dataDir, 'stack.json');
const stack = existsSync(stackFile) ? (JSON.parse(readFileSync(stackFile, 'utf8')) as CdkStackFile) : undefined;
const PAGE = 'https://evil.example';

interface Answer {
  status: number;
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
        incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, body: text }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(init.body);
  });
}

/** An AWS JSON request as the SDK signs it with `credentials`; `sign: false` sends the same request unsigned. */
async function awsJson(
  endpoint: string,
  options: {
    service: string;
    target: string;
    body: unknown;
    credentials: { accessKeyId: string; secretAccessKey: string };
    extra?: Record<string, string>;
    sign?: boolean;
  },
): Promise<Answer> {
  const url = new URL(endpoint);
  const body = JSON.stringify(options.body);
  const headers = { host: url.host, 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': options.target };
  const signer = new SignatureV4({
    service: options.service,
    region: 'eu-west-1',
    credentials: options.credentials,
    sha256: NodeSha256,
  });
  const signed =
    options.sign === false
      ? headers
      : (
          await signer.sign({
            method: 'POST',
            protocol: 'http:',
            hostname: url.hostname,
            port: Number(url.port),
            path: '/',
            headers,
            body,
          })
        ).headers;
  return send(endpoint, { method: 'POST', headers: { ...signed, ...options.extra }, body });
}

/**
 * CONTRACT §21 under start:cdk as it runs: the keys of this run in its stack.json, and every local endpoint refusing
 * a request from a web page, for a foreign Host, or not signed with its key.
 */
describe.skipIf(stack?.deployment !== 'cdk')("start:cdk's local endpoints (CONTRACT §21)", () => {
  const file = stack!;

  it("writes this run's key and local-routes token to stack.json, readable by its user only", () => {
    expect(statSync(stackFile).mode & 0o777).toBe(0o600);
    expect(file.credentials.accessKeyId).toMatch(/^AKIA[0-9A-F]{16}$/);
    expect(file.credentials.secretAccessKey.length).toBeGreaterThanOrEqual(40);
    expect(file.localRoutesToken.length).toBeGreaterThanOrEqual(32);
  });

  it('answers GET /_local/iam with the token of this run only, from loopback and not from a page', async () => {
    const url = `http://127.0.0.1:${file.ports.api}/_local/iam`;
    const host = `127.0.0.1:${file.ports.api}`;
    const authorization = `Bearer ${file.localRoutesToken}`;

    const anyone = await send(url, { method: 'GET', headers: { host } });
    const fromPage = await send(url, { method: 'GET', headers: { host, authorization, origin: PAGE } });
    const rebound = await send(url, {
      method: 'GET',
      headers: { host: `evil.example:${file.ports.api}`, authorization },
    });
    const operator = await send(url, { method: 'GET', headers: { host, authorization } });

    expect([anyone.status, fromPage.status, rebound.status]).toEqual([401, 403, 403]);
    expect(anyone.body + fromPage.body + rebound.body).not.toContain('functions');
    expect(operator.status).toBe(200);
    expect(Object.keys((JSON.parse(operator.body) as { functions: object }).functions).length).toBeGreaterThan(0);
  });

  it("refuses the JWT keys to an unsigned request and to the stack's own key at the AWS gateway (functions only)", async () => {
    const getKeys = (sign: boolean) =>
      awsJson(file.endpoints.aws, {
        service: 'secretsmanager',
        target: 'secretsmanager.GetSecretValue',
        body: { SecretId: 'wp-crm/dev/jwt-keys' },
        credentials: file.credentials,
        sign,
      });

    const unsigned = await getKeys(false);
    const localKey = await getKeys(true);

    expect(unsigned.status).toBe(400);
    expect(unsigned.body).toContain('MissingAuthenticationTokenException');
    expect(localKey.body).toContain('UnrecognizedClientException');
    expect(unsigned.body + localKey.body).not.toMatch(/SecretString/);
  });

  it("refuses the issue's forged PutEvents at the queues' and bus's endpoint, and serves the stack's key", async () => {
    const port = new URL(file.endpoints.sqs).port;
    const forged = await awsJson(file.endpoints.sqs, {
      service: 'events',
      target: 'AWSEvents.PutEvents',
      body: { Entries: [{ Source: 'wp-crm', DetailType: 'group.created', Detail: '{"forged":true}' }] },
      credentials: file.credentials,
      sign: false,
      extra: { origin: PAGE, host: `evil.example:${port}` },
    });
    const sqs = new SQSClient({ region: 'eu-west-1', endpoint: file.endpoints.sqs, credentials: file.credentials });
    const { QueueUrls = [] } = await sqs.send(new ListQueuesCommand({}));
    sqs.destroy();

    expect(forged.status).toBe(403);
    expect(QueueUrls.length).toBeGreaterThan(0);
  });

  it("refuses unsigned requests to the embedded DynamoDB and S3, and serves the stack's key", async () => {
    const dynamo = new URL(file.endpoints.dynamodb);
    const scan = await send(file.endpoints.dynamodb, {
      method: 'POST',
      headers: {
        host: dynamo.host,
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': 'DynamoDB_20120810.Scan',
      },
      body: JSON.stringify({ TableName: file.tableName, Limit: 1 }),
    });
    const listing = await send(file.endpoints.s3, {
      method: 'GET',
      headers: { host: new URL(file.endpoints.s3).host },
    });
    const db = new DynamoDBClient({
      region: 'eu-west-1',
      endpoint: file.endpoints.dynamodb,
      credentials: file.credentials,
    });
    const { TableNames = [] } = await db.send(new ListTablesCommand({}));
    db.destroy();

    expect([scan.status, listing.status]).toEqual([403, 403]);
    expect(TableNames).toContain(file.tableName);
  });
});
