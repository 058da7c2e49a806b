import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
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
  const credentials = await localRoute<{ accessKeyId: string; secretAccessKey: string; sessionToken: string }>(
    `/_local/assume-role?function=${logicalId}`,
  );
  const clients = { region: 'eu-west-1', endpoint: stack!.endpoints.aws, credentials, maxAttempts: 1 };
  return { logicalId: logicalId!, dynamo: new DynamoDBClient(clients), secrets: new SecretsManagerClient(clients) };
}

const denied = (call: Promise<unknown>) =>
  expect(call).rejects.toMatchObject({ name: expect.stringMatching(/^AccessDenied(Exception)?$/) });

// Under start:cdk only: the check is IAM's, made by the gateway with each function's role from the template.
describe.runIf(stack?.deployment === 'cdk')('trust boundaries under the synthesized roles (CONTRACT §21)', () => {
  it("denies the internet-facing network webhook's role an organisation's item and a channel's token; the worker behind it may read both", async () => {
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
    const item = await worker.dynamo.send(orgItem);
    const token = await worker.secrets.send(channelToken);

    expect(item.Item?.PK).toEqual({ S: `ORG#${orgId}` });
    expect(token.SecretString).toBeTruthy();
    const report = await localRoute<IamReport>('/_local/iam');
    expect(report.probes[`probe:${webhook.logicalId}`]?.denied.map((call) => call.action).sort()).toEqual([
      'dynamodb:GetItem',
      'secretsmanager:GetSecretValue',
    ]);
  });
});
