import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assumeRoleResponse, stsErrorResponse } from '#infra/cdk-local/sts';
import { StsError, StsRest } from '#shared/adapters/aws/sts-rest';

const credentials = { accessKeyId: 'AKIDFUNCTION', secretAccessKey: 'secret', sessionToken: 'function-session' };
const ROLE = 'arn:aws:iam::000000000000:role/WpCrm-dev-TenantAccessRole';
const ORG = '3f2b8c1e-5d4a-4b7e-9c6f-0a1b2c3d4e5f';

/** A stand-in STS endpoint: records each request, answers as STS does (XML), or with the error it is told to. */
const seen: { form: URLSearchParams; authorization: string; token: string | undefined }[] = [];
let failWith: { status: number; code: string } | undefined;
const server = createServer(async (request: IncomingMessage, response) => {
  let body = '';
  for await (const chunk of request) body += chunk;
  seen.push({
    form: new URLSearchParams(body),
    authorization: String(request.headers.authorization),
    token: request.headers['x-amz-security-token'] as string | undefined,
  });
  response.setHeader('content-type', 'text/xml');
  if (failWith) {
    response.statusCode = failWith.status;
    return void response.end(stsErrorResponse(failWith.code, 'refused & told so', 'req-1'));
  }
  response.end(
    assumeRoleResponse({
      credentials: { accessKeyId: 'ASIATENANT', secretAccessKey: 'tenant-secret', sessionToken: 'tenant-token' },
      expiration: new Date('2026-12-07T13:00:00.000Z'),
      arn: `arn:aws:sts::000000000000:assumed-role/WpCrm-dev-TenantAccessRole/org-${ORG}`,
      assumedRoleId: `AROAEXAMPLE:org-${ORG}`,
      requestId: 'req-1',
    }),
  );
});
let endpoint: string;
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('AssumeRole without the SDK’s STS client (CONTRACT §25)', () => {
  it('sends the request the AWS SDK sends, signed for sts with the function’s session, and reads its answer', async () => {
    seen.length = 0;
    failWith = undefined;
    const rest = new StsRest({ region: 'eu-west-1', endpoint, credentials: async () => credentials });
    const session = await rest.assumeRole({
      roleArn: ROLE,
      sessionName: `org-${ORG}`,
      durationSeconds: 3600,
      tags: { org: ORG },
    });
    const sdk = new STSClient({ region: 'eu-west-1', endpoint, credentials });
    const answer = await sdk.send(
      new AssumeRoleCommand({
        RoleArn: ROLE,
        RoleSessionName: `org-${ORG}`,
        DurationSeconds: 3600,
        Tags: [{ Key: 'org', Value: ORG }],
      }),
    );
    sdk.destroy();

    const [ours, theirs] = seen;
    expect(Object.fromEntries(ours!.form)).toEqual(Object.fromEntries(theirs!.form));
    expect(ours!.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDFUNCTION\/\d{8}\/eu-west-1\/sts\/aws4_request, SignedHeaders=/,
    );
    expect(ours!.token).toBe('function-session');
    expect(session).toEqual({
      accessKeyId: answer.Credentials!.AccessKeyId,
      secretAccessKey: answer.Credentials!.SecretAccessKey,
      sessionToken: answer.Credentials!.SessionToken,
      expiration: answer.Credentials!.Expiration,
    });
  });

  it('refuses at once when STS denies, and tries a throttled call once more', async () => {
    const rest = new StsRest({ region: 'eu-west-1', endpoint, credentials: async () => credentials });
    const call = { roleArn: ROLE, sessionName: `org-${ORG}`, durationSeconds: 3600, tags: { org: ORG } };
    seen.length = 0;
    failWith = { status: 403, code: 'AccessDenied' };
    const denied = await rest.assumeRole(call).catch((error: unknown) => error);
    expect(denied).toBeInstanceOf(StsError);
    expect(denied).toMatchObject({ code: 'AccessDenied', statusCode: 403, message: 'refused & told so' });
    expect(seen).toHaveLength(1);

    seen.length = 0;
    failWith = { status: 400, code: 'Throttling' };
    await expect(rest.assumeRole(call)).rejects.toMatchObject({ code: 'Throttling' });
    expect(seen).toHaveLength(2);
  });
});
