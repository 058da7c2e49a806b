import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { describe, expect, it } from 'vitest';
import type { IamReport } from '#infra/cdk-local/iam-ledger';
import { dataDir, localDeployment } from './target.ts';

interface CdkStackFile {
  deployment?: 'cdk';
  ports: { api: number };
  endpoints: { aws: string };
  tableName: string;
  localRoutesToken: string;
}

const stackFile = join(dataDir, 'stack.json');
const stack = existsSync(stackFile) ? (JSON.parse(readFileSync(stackFile, 'utf8')) as CdkStackFile) : undefined;

/** A diagnostic route of start:cdk, as its operator calls it (the bearer token of stack.json). */
async function localRoute<T>(path: string): Promise<T> {
  const response = await fetch(`http://127.0.0.1:${stack!.ports.api}${path}`, {
    headers: { authorization: `Bearer ${stack!.localRoutesToken}` },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as T;
}

/** A fresh session of the role of the function whose logical id starts with `prefix` (`<Concern><Function>`). */
async function roleOf(prefix: string) {
  const report = await localRoute<IamReport>('/_local/iam');
  const logicalId = Object.keys(report.functions).find((id) => id.startsWith(prefix));
  expect(logicalId, prefix).toBeDefined();
  const { tenantAccessRoleArn, ...credentials } = await localRoute<{
    accessKeyId: string;
    secretAccessKey: string;
    sessionToken: string;
    tenantAccessRoleArn?: string;
  }>(`/_local/assume-role?function=${logicalId}`);
  const clients = { region: 'eu-west-1', endpoint: stack!.endpoints.aws, credentials, maxAttempts: 1 };
  return {
    logicalId: logicalId!,
    dynamo: new DynamoDBClient(clients),
    secrets: new SecretsManagerClient(clients),
    /** The function's session of the tenant-access role for `org`, as the function assumes it (CONTRACT §25). */
    async tenant(org: string) {
      const sts = new STSClient(clients);
      const { Credentials: c } = await sts.send(
        new AssumeRoleCommand({
          RoleArn: tenantAccessRoleArn,
          RoleSessionName: `org-${org}`,
          Tags: [{ Key: 'org', Value: org }],
        }),
      );
      const session = {
        ...clients,
        credentials: {
          accessKeyId: c!.AccessKeyId!,
          secretAccessKey: c!.SecretAccessKey!,
          sessionToken: c!.SessionToken!,
        },
      };
      return { dynamo: new DynamoDBClient(session), secrets: new SecretsManagerClient(session) };
    },
  };
}

const denied = (call: Promise<unknown>) =>
  expect(call).rejects.toMatchObject({ name: expect.stringMatching(/^AccessDenied(Exception)?$/) });

// Under start:cdk only: the check is IAM's, made by the gateway with each function's role from the template.
describe.runIf(stack?.deployment === 'cdk')('trust boundaries under the synthesized roles (CONTRACT §21)', () => {
  it("denies the internet-facing network webhook's role an organisation's item and a channel's token; the worker behind it reads them only with that organisation's session (CONTRACT §21, §25)", async () => {
    const { orgId, demo } = localDeployment();
    const orgItem = new GetItemCommand({
      TableName: stack!.tableName,
      Key: { PK: { S: `ORG#${orgId}` }, SK: { S: 'ORG' } },
    });
    const channelToken = new GetSecretValueCommand({
      SecretId: `wp-crm/dev/channels/${orgId}/${demo.channels.eligible}`,
    });
    const webhook = await roleOf('NetworkReceiveNetworkWebhookFunction');
    const worker = await roleOf('NetworkNetworkNotificationsConsumerFunction');

    await denied(webhook.dynamo.send(orgItem));
    await denied(webhook.secrets.send(channelToken));
    // The worker's own role holds no organisation's data; its session of the tenant-access role for the
    // organisation does, and one for another organisation does not.
    await denied(worker.dynamo.send(orgItem));
    await denied(worker.secrets.send(channelToken));
    const own = await worker.tenant(orgId);
    const other = await worker.tenant(randomUUID());
    const item = await own.dynamo.send(orgItem);
    const token = await own.secrets.send(channelToken);
    await denied(other.dynamo.send(orgItem));
    await denied(other.secrets.send(channelToken));

    expect(item.Item?.PK).toEqual({ S: `ORG#${orgId}` });
    expect(token.SecretString).toBeTruthy();
    const report = await localRoute<IamReport>('/_local/iam');
    expect(report.probes[`probe:${webhook.logicalId}`]?.denied.map((call) => call.action).sort()).toEqual([
      'dynamodb:GetItem',
      'secretsmanager:GetSecretValue',
    ]);
  });
});
