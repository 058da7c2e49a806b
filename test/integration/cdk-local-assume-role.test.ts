import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { AssumeRoleCommand, GetCallerIdentityCommand, STSClient, type Tag } from '@aws-sdk/client-sts';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AwsGateway } from '#infra/cdk-local/aws-gateway';
import { IamLedger } from '#infra/cdk-local/iam-ledger';
import { TemplatePolicies } from '#infra/cdk-local/policies';
import { AwsServices } from '#infra/cdk-local/services';
import { type DeploymentContext, physicalResources, type Template, TemplateResolver } from '#infra/cdk-local/template';
import { type RunningServer, startDynamo, waitForActiveTable } from '#infra/local/servers';
import {
  assumeTenantPolicy,
  TENANT_CALLER_TAG,
  tenantAccessPolicy,
  tenantTrustPolicy,
} from '#test/support/tenant-policies';

const ACCOUNT = '000000000000';
const REGION = 'eu-west-1';
const TABLE = 'WpCrm-dev-Table';
const TABLE_ARN = `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${TABLE}`;
const TENANT_ROLE_ARN = `arn:aws:iam::${ACCOUNT}:role/WpCrm-dev-TenantAccess`;
const ORG_A = '0b4c9a52-6d1e-4f7a-9c3b-2e8d5f1a7c60';
const ORG_B = '7f3e2d1c-0b9a-4887-a665-544332211000';
/** Every function's processes sign with a key of their own and this secret and token (the gateway checks both). */
const FUNCTION_KEY = { secretAccessKey: 'function-secret', sessionToken: 'function-token' };

const lambdaTrust = {
  Version: '2012-10-17',
  Statement: [{ Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' }, Action: 'sts:AssumeRole' }],
};
const deployment = {
  account: ACCOUNT,
  region: REGION,
  stage: 'dev',
  tableArn: TABLE_ARN,
  bucket: 'wpcrm-dev-reports',
  keyArn: `arn:aws:kms:${REGION}:${ACCOUNT}:key/0d6f3c6e-1111-4222-8333-944455556666`,
};

/** A function with its own role (named `roleName`, tagged as a function role of `stage`) holding `document`. */
function fn(name: string, roleName: string, stage: string, document?: unknown): Template['Resources'] {
  return {
    [`${name}Role`]: {
      Type: 'AWS::IAM::Role',
      Properties: {
        RoleName: roleName,
        Tags: [{ Key: TENANT_CALLER_TAG, Value: stage }],
        AssumeRolePolicyDocument: lambdaTrust,
        ...(document ? { Policies: [{ PolicyName: 'own', PolicyDocument: document }] } : {}),
      },
    },
    [name]: {
      Type: 'AWS::Lambda::Function',
      Properties: { Role: { 'Fn::GetAtt': [`${name}Role`, 'Arn'] }, Handler: 'index.handler' },
    },
  };
}

const template: Template = {
  Resources: {
    Table: {
      Type: 'AWS::DynamoDB::Table',
      Properties: {
        TableName: TABLE,
        KeySchema: [
          { AttributeName: 'PK', KeyType: 'HASH' },
          { AttributeName: 'SK', KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: [
          {
            IndexName: 'GSI1',
            KeySchema: [
              { AttributeName: 'GSI1PK', KeyType: 'HASH' },
              { AttributeName: 'GSI1SK', KeyType: 'RANGE' },
            ],
          },
        ],
      },
    },
    TenantAccessRole: {
      Type: 'AWS::IAM::Role',
      Properties: {
        RoleName: 'WpCrm-dev-TenantAccess',
        MaxSessionDuration: 3600,
        AssumeRolePolicyDocument: tenantTrustPolicy(deployment),
        Policies: [{ PolicyName: 'tenant', PolicyDocument: tenantAccessPolicy(deployment) }],
      },
    },
    ...fn('GroupsFn', 'WpCrm-dev-GroupsFn', 'dev', assumeTenantPolicy(TENANT_ROLE_ARN)),
    // sts:AssumeRole alone: the trust policy delegates to the account, so its own policy must allow tagging too.
    ...fn('NoTagFn', 'WpCrm-dev-NoTagFn', 'dev', {
      Version: '2012-10-17',
      Statement: [{ Effect: 'Allow', Action: 'sts:AssumeRole', Resource: TENANT_ROLE_ARN }],
    }),
    // Both actions, but a function role of another stage: the trust policy does not accept it.
    ...fn('OtherStageFn', 'WpCrm-prod-GroupsFn', 'prod', assumeTenantPolicy(TENANT_ROLE_ARN)),
  },
};

const ctx: DeploymentContext = {
  stackName: 'WpCrm-dev-Service',
  region: REGION,
  account: ACCOUNT,
  awsEndpoint: 'http://127.0.0.1:1',
  apiOrigin: 'http://127.0.0.1:1',
};
const physical = physicalResources(template, ctx);

let dynamo: RunningServer;
const gateways: AwsGateway[] = [];

beforeAll(async () => {
  dynamo = await startDynamo({ port: 0 });
  const client = new DynamoDBClient({
    region: REGION,
    endpoint: dynamo.endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const names = ['PK', 'SK', 'GSI1PK', 'GSI1SK'];
  await client.send(
    new CreateTableCommand({
      TableName: TABLE,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: names.map((AttributeName) => ({ AttributeName, AttributeType: 'S' })),
      KeySchema: [
        { AttributeName: 'PK', KeyType: 'HASH' },
        { AttributeName: 'SK', KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: [
        {
          IndexName: 'GSI1',
          KeySchema: [
            { AttributeName: 'GSI1PK', KeyType: 'HASH' },
            { AttributeName: 'GSI1SK', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
    }),
  );
  await waitForActiveTable(client, TABLE);
  const backend = DynamoDBDocumentClient.from(client);
  for (const org of [ORG_A, ORG_B]) {
    await backend.send(
      new PutCommand({
        TableName: TABLE,
        Item: { PK: `ORG#${org}`, SK: 'ORG', GSI1PK: `ORG#${org}#GROUPS`, GSI1SK: '1', name: `org ${org}` },
      }),
    );
  }
  client.destroy();
});

afterEach(async () => {
  await Promise.all(gateways.splice(0).map((gateway) => gateway.close()));
});

afterAll(async () => {
  await dynamo.close();
});

/** The gateway over the template above, each function's session registered, and a clock a test can move. */
async function startGateway() {
  const policies = new TemplatePolicies(template, new TemplateResolver(ctx, physical), physical, {
    defaultRegion: REGION,
    account: ACCOUNT,
  });
  const ledger = new IamLedger('enforce');
  const clock = { offsetMs: 0 };
  const gateway = new AwsGateway(
    policies,
    ledger,
    () => ({
      dynamodb: dynamo.endpoint,
      s3: 'http://127.0.0.1:1',
      sqsAndEvents: 'http://127.0.0.1:1',
      localCredentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      services: new AwsServices(undefined, REGION, ACCOUNT),
      invoke: async () => ({ payload: 'null' }),
    }),
    ACCOUNT,
    () => new Date(Date.now() + clock.offsetMs),
  );
  gateways.push(gateway);
  for (const name of ['GroupsFn', 'NoTagFn', 'OtherStageFn']) {
    const accessKeyId = `ASIA${name.toUpperCase().padEnd(16, '0')}`;
    gateway.addPrincipal(accessKeyId, policies.sessionFor(name, accessKeyId, `${name}-session`), FUNCTION_KEY);
    ledger.register(name, policies.grantedPairs(name));
  }
  const endpoint = await gateway.listen();
  return { endpoint, ledger, clock };
}

const sts = (endpoint: string, name: string) =>
  new STSClient({
    endpoint,
    region: REGION,
    maxAttempts: 1,
    credentials: { accessKeyId: `ASIA${name.toUpperCase().padEnd(16, '0')}`, ...FUNCTION_KEY },
  });

const orgTag = (org: string): Tag[] => [{ Key: 'org', Value: org }];
/** The trust policy asks for `org-<orgId>` (CloudTrail then names the organisation of every call). */
const SESSION_NAME = `org-${ORG_A}`;

async function assume(endpoint: string, name: string, tags: Tag[] | undefined, durationSeconds?: number) {
  const { Credentials } = await sts(endpoint, name).send(
    new AssumeRoleCommand({
      RoleArn: TENANT_ROLE_ARN,
      RoleSessionName: SESSION_NAME,
      ...(tags ? { Tags: tags } : {}),
      ...(durationSeconds ? { DurationSeconds: durationSeconds } : {}),
    }),
  );
  return Credentials!;
}

const tableClient = (endpoint: string, credentials: Awaited<ReturnType<typeof assume>>) =>
  DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint,
      region: REGION,
      maxAttempts: 1,
      credentials: {
        accessKeyId: credentials.AccessKeyId!,
        secretAccessKey: credentials.SecretAccessKey!,
        sessionToken: credentials.SessionToken!,
      },
    }),
  );

const rejection = (work: Promise<unknown>) =>
  work.then(
    () => {
      throw new Error('the call succeeded');
    },
    (error: Error & { $metadata?: { httpStatusCode?: number } }) => error,
  );

describe('STS AssumeRole through the start:cdk gateway (CONTRACT §25)', () => {
  it('issues fresh keys for every session, expiring after DurationSeconds', async () => {
    const { endpoint } = await startGateway();
    const before = Date.now();

    const first = await assume(endpoint, 'GroupsFn', orgTag(ORG_A), 900);
    const second = await assume(endpoint, 'GroupsFn', orgTag(ORG_A));

    expect(first.AccessKeyId).toMatch(/^ASIA[0-9A-F]{16}$/);
    expect(new Set([first.AccessKeyId, second.AccessKeyId]).size).toBe(2);
    expect(first.SecretAccessKey).not.toBe(second.SecretAccessKey);
    expect(first.SessionToken).not.toBe(second.SessionToken);
    expect(first.Expiration!.getTime() - before).toBeGreaterThanOrEqual(899_000);
    expect(first.Expiration!.getTime() - before).toBeLessThanOrEqual(901_000);
    expect(second.Expiration!.getTime() - before).toBeGreaterThanOrEqual(3_599_000);
  });

  it("lets a session tagged org=A reach A's items and A's index partitions, and refuses B's", async () => {
    const { endpoint, ledger } = await startGateway();
    const table = tableClient(endpoint, await assume(endpoint, 'GroupsFn', orgTag(ORG_A)));
    const query = (org: string) =>
      table.send(
        new QueryCommand({
          TableName: TABLE,
          IndexName: 'GSI1',
          KeyConditionExpression: 'GSI1PK = :pk',
          ExpressionAttributeValues: { ':pk': `ORG#${org}#GROUPS` },
        }),
      );

    const own = await table.send(new GetCommand({ TableName: TABLE, Key: { PK: `ORG#${ORG_A}`, SK: 'ORG' } }));
    const ownIndex = await query(ORG_A);
    const other = await rejection(
      table.send(new GetCommand({ TableName: TABLE, Key: { PK: `ORG#${ORG_B}`, SK: 'ORG' } })),
    );
    const otherIndex = await rejection(query(ORG_B));

    expect(own.Item?.name).toBe(`org ${ORG_A}`);
    expect(ownIndex.Items?.map((item) => item.PK)).toEqual([`ORG#${ORG_A}`]);
    expect([other.name, otherIndex.name]).toEqual(['AccessDeniedException', 'AccessDeniedException']);
    expect(other.message).toContain(`:assumed-role/WpCrm-dev-TenantAccess/${SESSION_NAME} is not authorized`);
    expect(ledger.report().functions['GroupsFn@TenantAccessRole']?.denied).toEqual([
      { action: 'dynamodb:GetItem', resource: TABLE_ARN, count: 1 },
      { action: 'dynamodb:Query', resource: `${TABLE_ARN}/index/GSI1`, count: 1 },
    ]);
  });

  it('names the session as its role and session name (GetCallerIdentity)', async () => {
    const { endpoint } = await startGateway();
    const credentials = await assume(endpoint, 'GroupsFn', orgTag(ORG_A));

    const identity = await new STSClient({
      endpoint,
      region: REGION,
      credentials: {
        accessKeyId: credentials.AccessKeyId!,
        secretAccessKey: credentials.SecretAccessKey!,
        sessionToken: credentials.SessionToken!,
      },
    }).send(new GetCallerIdentityCommand({}));

    expect(identity.Arn).toBe(`arn:aws:sts::${ACCOUNT}:assumed-role/WpCrm-dev-TenantAccess/${SESSION_NAME}`);
    expect(identity.UserId).toMatch(new RegExp(`^AROA[A-Z2-7]{17}:${SESSION_NAME}$`));
  });

  it('refuses a session without the org tag, or with a tag that is not an organisation id', async () => {
    const { endpoint, ledger } = await startGateway();

    const untagged = await rejection(assume(endpoint, 'GroupsFn', undefined));
    const notAnOrg = await rejection(assume(endpoint, 'GroupsFn', orgTag('*')));
    const extraTag = await rejection(assume(endpoint, 'GroupsFn', [...orgTag(ORG_A), { Key: 'team', Value: 'x' }]));

    expect([untagged.name, notAnOrg.name, extraTag.name]).toEqual(['AccessDenied', 'AccessDenied', 'AccessDenied']);
    expect(untagged.$metadata?.httpStatusCode).toBe(403);
    expect(ledger.report().functions.GroupsFn?.denied).toEqual([
      { action: 'sts:AssumeRole', resource: TENANT_ROLE_ARN, count: 2 },
      { action: 'sts:TagSession', resource: TENANT_ROLE_ARN, count: 1 },
    ]);
  });

  it('refuses a session not named org-<orgId>', async () => {
    const { endpoint, ledger } = await startGateway();

    const misnamed = await rejection(
      sts(endpoint, 'GroupsFn').send(
        new AssumeRoleCommand({ RoleArn: TENANT_ROLE_ARN, RoleSessionName: 'GroupsFn-org', Tags: orgTag(ORG_A) }),
      ),
    );

    expect(misnamed.name).toBe('AccessDenied');
    expect(ledger.report().functions.GroupsFn?.denied).toEqual([
      { action: 'sts:AssumeRole', resource: TENANT_ROLE_ARN, count: 1 },
    ]);
  });

  it('refuses transitive tags, and a tenant session that tries to assume the role again for another organisation', async () => {
    const { endpoint, ledger } = await startGateway();
    const transitive = await rejection(
      sts(endpoint, 'GroupsFn').send(
        new AssumeRoleCommand({
          RoleArn: TENANT_ROLE_ARN,
          RoleSessionName: SESSION_NAME,
          Tags: orgTag(ORG_A),
          TransitiveTagKeys: ['org'],
        }),
      ),
    );
    const session = await assume(endpoint, 'GroupsFn', orgTag(ORG_A));

    const rechained = await rejection(
      new STSClient({
        endpoint,
        region: REGION,
        maxAttempts: 1,
        credentials: {
          accessKeyId: session.AccessKeyId!,
          secretAccessKey: session.SecretAccessKey!,
          sessionToken: session.SessionToken!,
        },
      }).send(
        new AssumeRoleCommand({ RoleArn: TENANT_ROLE_ARN, RoleSessionName: `org-${ORG_B}`, Tags: orgTag(ORG_B) }),
      ),
    );

    expect([transitive.name, rechained.name]).toEqual(['AccessDenied', 'AccessDenied']);
    expect(ledger.report().functions['GroupsFn@TenantAccessRole']?.denied).toEqual([
      { action: 'sts:AssumeRole', resource: TENANT_ROLE_ARN, count: 1 },
    ]);
  });

  it('refuses a caller whose own role may not tag the session, and a role the trust policy does not name', async () => {
    const { endpoint, ledger } = await startGateway();

    const noTagging = await rejection(assume(endpoint, 'NoTagFn', orgTag(ORG_A)));
    const otherStage = await rejection(assume(endpoint, 'OtherStageFn', orgTag(ORG_A)));

    expect([noTagging.name, otherStage.name]).toEqual(['AccessDenied', 'AccessDenied']);
    expect(noTagging.message).toContain('sts:TagSession');
    expect(ledger.report().functions.NoTagFn?.denied).toEqual([
      { action: 'sts:TagSession', resource: TENANT_ROLE_ARN, count: 1 },
    ]);
    expect(ledger.report().functions.OtherStageFn?.denied).toEqual([
      { action: 'sts:AssumeRole', resource: TENANT_ROLE_ARN, count: 1 },
    ]);
  });

  it('answers a request it cannot read in the Query protocol (XML), as STS does', async () => {
    const { endpoint } = await startGateway();

    const missing = await rejection(
      sts(endpoint, 'GroupsFn').send(
        new AssumeRoleCommand({ RoleArn: TENANT_ROLE_ARN, RoleSessionName: undefined as never }),
      ),
    );

    expect(missing.name).toBe('ValidationError');
    expect(missing.$metadata?.httpStatusCode).toBe(400);
  });

  it("refuses a duration below 900 s or above the role's MaxSessionDuration", async () => {
    const { endpoint } = await startGateway();

    const tooLong = await rejection(assume(endpoint, 'GroupsFn', orgTag(ORG_A), 7200));
    const tooShort = await rejection(assume(endpoint, 'GroupsFn', orgTag(ORG_A), 899));

    expect([tooLong.name, tooShort.name]).toEqual(['ValidationError', 'ValidationError']);
    expect(tooLong.message).toBe('The requested DurationSeconds exceeds the MaxSessionDuration set for this role.');
  });

  it('refuses a session once it has expired', async () => {
    const { endpoint, clock } = await startGateway();
    const table = tableClient(endpoint, await assume(endpoint, 'GroupsFn', orgTag(ORG_A), 900));
    const read = () => table.send(new GetCommand({ TableName: TABLE, Key: { PK: `ORG#${ORG_A}`, SK: 'ORG' } }));
    await read();

    clock.offsetMs = 900_000;
    const expired = await rejection(read());

    expect(expired.name).toBe('ExpiredTokenException');
    expect(expired.message).toBe('The security token included in the request is expired');
  });
});
