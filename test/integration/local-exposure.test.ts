import { request } from 'node:http';
import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { SignatureV4 } from '@smithy/signature-v4';
import { describe, expect, it } from 'vitest';
import { NodeSha256 } from '#shared/adapters/s3/s3-rest';
import { eventually, useLocalStack } from '#test/support/local-stack';

/**
 * Issue 19.4: any web page in the developer's browser could reach the embedded DynamoDB (CORS *, no signature check:
 * a Scan returned secret hashes and channel tokens) and S3 (unsigned GETs of report files). Both now answer only the
 * stack's own signed clients from loopback.
 */
describe("the local stack's embedded DynamoDB and S3", () => {
  const api = useLocalStack();
  const dynamo = () => api.stack.info.endpoints.dynamodb;

  async function signedScan(credentials = api.stack.info.credentials) {
    const target = new URL(dynamo());
    const body = JSON.stringify({ TableName: api.stack.info.tableName, Limit: 1 });
    const signer = new SignatureV4({ service: 'dynamodb', region: 'eu-west-1', credentials, sha256: NodeSha256 });
    return signer.sign({
      method: 'POST',
      protocol: 'http:',
      hostname: target.hostname,
      port: Number(target.port),
      path: '/',
      headers: {
        host: target.host,
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': 'DynamoDB_20120810.Scan',
      },
      body,
    });
  }

  /** Sends a request over loopback with exactly these headers (fetch would not let a test set Host). */
  function send(
    url: string,
    init: { method: string; headers: Record<string, string>; body?: string },
  ): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
    const target = new URL(url);
    return new Promise((resolve, reject) => {
      const outgoing = request(
        { host: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, ...init },
        (incoming) => {
          let text = '';
          incoming.on('data', (chunk: Buffer) => {
            text += chunk.toString('utf8');
          });
          incoming.on('end', () =>
            resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body: text }),
          );
        },
      );
      outgoing.on('error', reject);
      outgoing.end(init.body);
    });
  }

  it('answers a Scan signed with the local key', async () => {
    const signed = await signedScan();

    const answer = await send(dynamo(), { method: 'POST', headers: signed.headers, body: signed.body as string });

    expect(answer.status).toBe(200);
  });

  it('refuses a request that a web page makes (Origin), its CORS preflight included, and answers no CORS header', async () => {
    const signed = await signedScan();

    const fromPage = await send(dynamo(), {
      method: 'POST',
      headers: { ...signed.headers, origin: 'https://evil.example' },
      body: signed.body as string,
    });
    const preflight = await send(dynamo(), {
      method: 'OPTIONS',
      headers: {
        host: new URL(dynamo()).host,
        origin: 'https://evil.example',
        'access-control-request-method': 'POST',
      },
    });

    expect(fromPage.status).toBe(403);
    expect(preflight.status).toBe(403);
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    expect(fromPage.body).not.toContain('Items');
  });

  it('refuses a Host other than its loopback name and port (DNS rebinding)', async () => {
    const signed = await signedScan();

    const rebound = await send(dynamo(), {
      method: 'POST',
      headers: { ...signed.headers, host: `evil.example:${new URL(dynamo()).port}` },
      body: signed.body as string,
    });

    expect(rebound.status).toBe(403);
  });

  it('refuses an unsigned request and one signed with any other key', async () => {
    const signed = await signedScan();
    const { authorization: _, ...unsigned } = signed.headers;
    const otherKey = new DynamoDBClient({
      region: 'eu-west-1',
      endpoint: dynamo(),
      credentials: { accessKeyId: api.stack.info.credentials.accessKeyId, secretAccessKey: 'guessed' },
      maxAttempts: 1,
    });

    const bare = await send(dynamo(), { method: 'POST', headers: unsigned, body: signed.body as string });
    const other = await otherKey.send(new ScanCommand({ TableName: api.stack.info.tableName })).catch((e) => e);

    expect(bare.status).toBe(403);
    expect((other as Error).name).toBe('AccessDeniedException');
  });

  it("serves a report file through the service's pre-signed URL, and refuses it unsigned or from a web page", async () => {
    const token = await api.token('CRM_ADMIN');
    const { reportId } = (await (
      await api.call(`/reports/${api.orgId}`, { method: 'POST', token, json: { reportType: 'BOOKING' } })
    ).json()) as { reportId: string };
    await eventually(async () =>
      expect(
        ((await (await api.call(`/reports/${api.orgId}/${reportId}`, { token })).json()) as { status: string }).status,
      ).toBe('COMPLETED'),
    );
    const { url } = (await (
      await api.call(`/reports/${api.orgId}/${reportId}/download?redirect=false`, { token })
    ).json()) as { url: string };
    const host = new URL(url).host;

    const presigned = await send(url, { method: 'GET', headers: { host } });
    const unsigned = await send(url.split('?')[0]!, { method: 'GET', headers: { host } });
    const fromPage = await send(url, { method: 'GET', headers: { host, origin: 'https://evil.example' } });
    const tampered = await send(url.replace(/X-Amz-Expires=\d+/, 'X-Amz-Expires=604800'), {
      method: 'GET',
      headers: { host },
    });

    expect(presigned.status).toBe(200);
    expect(presigned.body).toMatch(/^bookingId,/);
    expect(unsigned.status).toBe(403);
    expect(unsigned.body).not.toContain('bookingId');
    expect(fromPage.status).toBe(403);
    expect(tampered.status).toBe(403);
  });
});
