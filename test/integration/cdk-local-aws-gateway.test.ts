import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AwsGateway } from '#infra/cdk-local/aws-gateway';
import { IamLedger, type IamMode } from '#infra/cdk-local/iam-ledger';
import { TemplatePolicies } from '#infra/cdk-local/policies';
import { AwsServices } from '#infra/cdk-local/services';
import { type DeploymentContext, physicalResources, type Template, TemplateResolver } from '#infra/cdk-local/template';
import { type RunningServer, startDynamo, waitForActiveTable } from '#infra/local/servers';

const ACCOUNT = '000000000000';
const REGION = 'eu-west-1';
const ACCESS_KEY_ID = 'ASIAGROUPSFN0000001';
const SESSION_NAME = 'WpCrm-dev-Service-GroupsFn-0123456789AB';
const KEYS_ACCESS_KEY_ID = 'ASIAKEYSFN000000001';
/** What the functions' processes sign with (the gateway verifies each signature with it). */
const SESSION_KEY = { secretAccessKey: 'secret', sessionToken: 'session' };

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
    GroupsFnRole: {
      Type: 'AWS::IAM::Role',
      Properties: {
        AssumeRolePolicyDocument: {
          Version: '2012-10-17',
          Statement: [{ Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' }, Action: 'sts:AssumeRole' }],
        },
      },
    },
    GroupsFnRolePolicy: {
      Type: 'AWS::IAM::Policy',
      Properties: {
        PolicyName: 'GroupsFnRolePolicy',
        Roles: [{ Ref: 'GroupsFnRole' }],
        PolicyDocument: {
          Version: '2012-10-17',
          Statement: [{ Effect: 'Allow', Action: 'dynamodb:GetItem', Resource: { 'Fn::GetAtt': ['Table', 'Arn'] } }],
        },
      },
    },
    GroupsFn: {
      Type: 'AWS::Lambda::Function',
      Properties: { Role: { 'Fn::GetAtt': ['GroupsFnRole', 'Arn'] }, Handler: 'index.handler' },
    },
    KeysFnRole: {
      Type: 'AWS::IAM::Role',
      Properties: {
        AssumeRolePolicyDocument: {
          Version: '2012-10-17',
          Statement: [{ Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' }, Action: 'sts:AssumeRole' }],
        },
      },
    },
    KeysFnRolePolicy: {
      Type: 'AWS::IAM::Policy',
      Properties: {
        PolicyName: 'KeysFnRolePolicy',
        Roles: [{ Ref: 'KeysFnRole' }],
        PolicyDocument: {
          Version: '2012-10-17',
          Statement: [
            {
              Effect: 'Allow',
              Action: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:BatchGetItem'],
              Resource: { 'Fn::GetAtt': ['Table', 'Arn'] },
              Condition: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['JWKS'] } },
            },
          ],
        },
      },
    },
    KeysFn: {
      Type: 'AWS::Lambda::Function',
      Properties: { Role: { 'Fn::GetAtt': ['KeysFnRole', 'Arn'] }, Handler: 'index.handler' },
    },
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
const tableName = physical.get('Table')!.ref;
const tableArn = physical.get('Table')!.attributes.Arn!;
const roleName = physical.get('GroupsFnRole')!.ref;

let dynamo: RunningServer;
const gateways: AwsGateway[] = [];

beforeAll(async () => {
  dynamo = await startDynamo({ port: 0 });
  const client = new DynamoDBClient({
    region: REGION,
    endpoint: dynamo.endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [{ AttributeName: 'PK', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'PK', AttributeType: 'S' }],
    }),
  );
  await waitForActiveTable(client, tableName);
  client.destroy();
});

afterEach(async () => {
  await Promise.all(gateways.splice(0).map((gateway) => gateway.close()));
});

afterAll(async () => {
  await dynamo.close();
});

const startGateway = async (mode: IamMode) => {
  const policies = new TemplatePolicies(template, new TemplateResolver(ctx, physical), physical, {
    defaultRegion: REGION,
    account: ACCOUNT,
  });
  const ledger = new IamLedger(mode);
  ledger.register('GroupsFn', policies.grantedPairs('GroupsFn'));
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
  );
  gateways.push(gateway);
  gateway.addPrincipal(ACCESS_KEY_ID, policies.sessionFor('GroupsFn', ACCESS_KEY_ID, SESSION_NAME), SESSION_KEY);
  ledger.register('KeysFn', policies.grantedPairs('KeysFn'));
  gateway.addPrincipal(
    KEYS_ACCESS_KEY_ID,
    policies.sessionFor('KeysFn', KEYS_ACCESS_KEY_ID, 'KeysFn-session'),
    SESSION_KEY,
  );
  const endpoint = await gateway.listen();
  return { endpoint, ledger };
};

const documentClient = (endpoint: string, accessKeyId = ACCESS_KEY_ID) =>
  DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint,
      region: REGION,
      credentials: { accessKeyId, secretAccessKey: 'secret', sessionToken: 'session' },
      maxAttempts: 1,
    }),
  );

const rejection = (work: Promise<unknown>) =>
  work.then(
    () => {
      throw new Error('the call succeeded');
    },
    (error: Error & { $metadata?: { httpStatusCode?: number } }) => error,
  );

describe('dynamodb:LeadingKeys under start:cdk (issue 19.2)', () => {
  it('lets a role limited to one partition read that partition, and refuses it every other one', async () => {
    const { endpoint, ledger } = await startGateway('enforce');
    const client = documentClient(endpoint, KEYS_ACCESS_KEY_ID);

    const own = await client.send(new GetCommand({ TableName: tableName, Key: { PK: 'JWKS' } }));
    const other = await rejection(client.send(new GetCommand({ TableName: tableName, Key: { PK: 'ORG#acme' } })));
    const otherQuery = await rejection(
      client.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'PK = :pk',
          ExpressionAttributeValues: { ':pk': 'ORG#acme' },
        }),
      ),
    );
    const mixedBatch = await rejection(
      client.send(
        new BatchGetCommand({ RequestItems: { [tableName]: { Keys: [{ PK: 'JWKS' }, { PK: 'ORG#acme' }] } } }),
      ),
    );

    expect(own.$metadata.httpStatusCode).toBe(200);
    expect([other.name, otherQuery.name, mixedBatch.name]).toEqual([
      'AccessDeniedException',
      'AccessDeniedException',
      'AccessDeniedException',
    ]);
    expect(
      ledger
        .report()
        .functions.KeysFn!.denied.map((call) => call.action)
        .sort(),
    ).toEqual(['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query']);
  });
});

describe('AwsGateway with TemplatePolicies', () => {
  it('forwards a call the role allows to the backend', async () => {
    const { endpoint } = await startGateway('enforce');
    const backend = documentClient(dynamo.endpoint, 'local');
    await backend.send(new PutCommand({ TableName: tableName, Item: { PK: 'allowed', name: 'Sales' } }));

    const { Item } = await documentClient(endpoint).send(
      new GetCommand({ TableName: tableName, Key: { PK: 'allowed' } }),
    );

    expect(Item).toEqual({ PK: 'allowed', name: 'Sales' });
  });

  it("refuses a call the role does not allow with AWS's AccessDeniedException", async () => {
    const { endpoint } = await startGateway('enforce');

    const error = await rejection(
      documentClient(endpoint).send(new PutCommand({ TableName: tableName, Item: { PK: 'denied' } })),
    );

    expect(error.name).toBe('AccessDeniedException');
    expect(error.$metadata?.httpStatusCode).toBe(400);
    expect(error.message).toBe(
      `User: arn:aws:sts::${ACCOUNT}:assumed-role/${roleName}/${SESSION_NAME} is not authorized to perform: ` +
        `dynamodb:PutItem on resource: ${tableArn} because no identity-based policy allows the dynamodb:PutItem action`,
    );
  });

  it('does not forward a refused call to the backend', async () => {
    const { endpoint } = await startGateway('enforce');

    await rejection(documentClient(endpoint).send(new PutCommand({ TableName: tableName, Item: { PK: 'kept-out' } })));

    const { Item } = await documentClient(dynamo.endpoint, 'local').send(
      new GetCommand({ TableName: tableName, Key: { PK: 'kept-out' } }),
    );
    expect(Item).toBeUndefined();
  });

  it('records the denied call and marks the grant a call used', async () => {
    const { endpoint, ledger } = await startGateway('enforce');
    const client = documentClient(endpoint);
    const unusedBefore = ledger.report().functions.GroupsFn!.unused;

    await client.send(new GetCommand({ TableName: tableName, Key: { PK: 'any' } }));
    await rejection(client.send(new PutCommand({ TableName: tableName, Item: { PK: 'denied' } })));

    expect(unusedBefore).toEqual([`dynamodb:GetItem ${tableArn}`]);
    expect(ledger.report().functions.GroupsFn).toEqual({
      denied: [{ action: 'dynamodb:PutItem', resource: tableArn, count: 1 }],
      used: [`dynamodb:GetItem ${tableArn}`],
      unused: [],
    });
  });

  it("refuses an access key that belongs to no function with DynamoDB's UnrecognizedClientException", async () => {
    const { endpoint, ledger } = await startGateway('enforce');

    const error = await rejection(
      documentClient(endpoint, 'AKIAUNKNOWN000000000').send(new GetCommand({ TableName: tableName, Key: { PK: 'x' } })),
    );

    expect(error.name).toBe('UnrecognizedClientException');
    expect(error.$metadata?.httpStatusCode).toBe(400);
    expect(error.message).toBe('The security token included in the request is invalid.');
    expect(ledger.deniedCount).toBe(0);
  });

  it('lets a call the role does not allow through in report mode, recording it as denied', async () => {
    const { endpoint, ledger } = await startGateway('report');
    const client = documentClient(endpoint);

    await client.send(new PutCommand({ TableName: tableName, Item: { PK: 'reported', name: 'Support' } }));

    const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: { PK: 'reported' } }));
    expect(Item).toEqual({ PK: 'reported', name: 'Support' });
    expect(ledger.report().functions.GroupsFn).toEqual({
      denied: [{ action: 'dynamodb:PutItem', resource: tableArn, count: 1 }],
      used: [`dynamodb:GetItem ${tableArn}`],
      unused: [],
    });
  });

  it('lets every call through in off mode and records nothing', async () => {
    const { endpoint, ledger } = await startGateway('off');
    const client = documentClient(endpoint);

    await client.send(new PutCommand({ TableName: tableName, Item: { PK: 'unchecked' } }));
    await client.send(new GetCommand({ TableName: tableName, Key: { PK: 'unchecked' } }));

    expect(ledger.report().functions.GroupsFn).toEqual({
      denied: [],
      used: [],
      unused: [`dynamodb:GetItem ${tableArn}`],
    });
  });
});
