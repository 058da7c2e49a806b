import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  CreateTableCommand,
  DeleteItemCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  DynamoDBClient,
  GetItemCommand,
  QueryCommand,
  ScanCommand,
  TransactGetItemsCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import {
  DecryptCommand,
  DescribeKeyCommand,
  EncryptCommand,
  GenerateDataKeyCommand,
  KMSClient,
  ReEncryptCommand,
} from '@aws-sdk/client-kms';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetBucketLocationCommand,
  GetBucketTaggingCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  ListPartsCommand,
  PutBucketTaggingCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import {
  BatchGetSecretValueCommand,
  CreateSecretCommand,
  DescribeSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
  UpdateSecretCommand,
} from '@aws-sdk/client-secrets-manager';
import {
  ChangeMessageVisibilityBatchCommand,
  ChangeMessageVisibilityCommand,
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  PurgeQueueCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import {
  DeleteParameterCommand,
  DescribeParametersCommand,
  GetParameterCommand,
  GetParameterHistoryCommand,
  GetParametersCommand,
  PutParameterCommand,
  SSMClient,
} from '@aws-sdk/client-ssm';
import { QueryCommand as DocumentQueryCommand, DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AwsCall,
  type DescribeContext,
  describeAwsCall,
  type HttpRequest,
} from '#infra/cdk-local/iam/aws-request';

const ACCOUNT = '000000000000';
const REGION = 'eu-west-1';
const ACCESS_KEY_ID = 'AKIATESTFUNCTION';
const SESSION = `arn:aws:sts::${ACCOUNT}:assumed-role/S-FnServiceRole1A2B3C/wp-crm-dev-create-group`;
const TABLE = `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/groups`;
const SECRET = `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:wp-crm/jwt-AbCdEf`;
const KEY = `arn:aws:kms:${REGION}:${ACCOUNT}:key/1234abcd-12ab-34cd-56ef-1234567890ab`;
const OTHER_KEY = `arn:aws:kms:${REGION}:${ACCOUNT}:key/ffffffff-12ab-34cd-56ef-1234567890ab`;
const CIPHERTEXT = Buffer.from('sealed-by-key');
const NOW = new Date('2025-03-01T10:00:00.000Z');

const ctx: DescribeContext = {
  account: ACCOUNT,
  principalArn: (accessKeyId) => (accessKeyId === ACCESS_KEY_ID ? SESSION : undefined),
  secretArn: (id) =>
    [SECRET, 'wp-crm/jwt', `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:wp-crm/jwt`].includes(id)
      ? SECRET
      : undefined,
  newSecretArn: (name) => `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:${name}-NeW123`,
  kmsKeyArn: (id) => ({ 'alias/webhook-secrets': KEY, '1234abcd-12ab-34cd-56ef-1234567890ab': KEY, [KEY]: KEY })[id],
  kmsKeyArnForCiphertext: (blob) => (blob === CIPHERTEXT.toString('base64') ? KEY : undefined),
  partitionKeyName: (_table, index) => (index ? 'GSI1PK' : 'PK'),
  now: () => NOW,
};

interface Clients {
  dynamodb: DynamoDBClient;
  documents: DynamoDBDocumentClient;
  sqs: SQSClient;
  events: EventBridgeClient;
  secrets: SecretsManagerClient;
  ssm: SSMClient;
  kms: KMSClient;
  s3: S3Client;
}

const requests: HttpRequest[] = [];
let server: Server;
let endpoint: string;
let clients: Clients;
let queueUrl: string;

beforeAll(async () => {
  server = createServer((incoming, response) => void capture(incoming, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  queueUrl = `${endpoint}/${ACCOUNT}/group-requests`;
  const config = {
    region: REGION,
    endpoint,
    credentials: { accessKeyId: ACCESS_KEY_ID, secretAccessKey: 'x' },
    maxAttempts: 1,
  };
  const dynamodb = new DynamoDBClient(config);
  clients = {
    dynamodb,
    documents: DynamoDBDocumentClient.from(dynamodb),
    sqs: new SQSClient(config),
    events: new EventBridgeClient(config),
    secrets: new SecretsManagerClient(config),
    ssm: new SSMClient(config),
    kms: new KMSClient(config),
    s3: new S3Client({ ...config, forcePathStyle: true }),
  };
});

afterAll(async () => {
  for (const client of Object.values(clients ?? {})) client.destroy();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
});

async function capture(incoming: IncomingMessage, response: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  const headers = Object.fromEntries(
    Object.entries(incoming.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(',') : value]),
  );
  const http: HttpRequest = {
    method: incoming.method ?? 'GET',
    path: incoming.url ?? '/',
    headers,
    body: Buffer.concat(chunks),
  };
  requests.push(http);
  const { status, headers: responseHeaders, body } = answer(http);
  response.writeHead(status, responseHeaders);
  response.end(body);
}

/** The smallest responses the SDK clients accept for the operations under test. */
function answer(http: HttpRequest): { status: number; headers: Record<string, string>; body: string } {
  const target = http.headers['x-amz-target'];
  if (target) {
    const input = JSON.parse(http.body.toString('utf8') || '{}') as Record<string, unknown>;
    const json = (body: unknown) => ({
      status: 200,
      headers: { 'content-type': 'application/x-amz-json-1.1' },
      body: JSON.stringify(body),
    });
    if (target === 'AmazonSQS.SendMessage') {
      const md5 = createHash('md5').update(String(input.MessageBody)).digest('hex');
      return json({ MessageId: 'm-1', MD5OfMessageBody: md5 });
    }
    if (target === 'AWSEvents.PutEvents') return json({ FailedEntryCount: 0, Entries: [] });
    return json({});
  }
  const url = new URL(http.path, endpoint);
  const xml = (body: string) => ({ status: 200, headers: { 'content-type': 'application/xml' }, body });
  if (http.method === 'POST' && url.searchParams.has('uploads')) {
    return xml(
      '<InitiateMultipartUploadResult><Bucket>b</Bucket><Key>k</Key><UploadId>up-1</UploadId></InitiateMultipartUploadResult>',
    );
  }
  if (http.method === 'POST' && url.searchParams.has('uploadId')) {
    return xml(
      '<CompleteMultipartUploadResult><Bucket>b</Bucket><Key>k</Key><ETag>"e"</ETag></CompleteMultipartUploadResult>',
    );
  }
  if (http.method === 'POST' && url.searchParams.has('delete')) return xml('<DeleteResult></DeleteResult>');
  if (http.method === 'GET' && url.searchParams.has('location'))
    return xml('<LocationConstraint>eu-west-1</LocationConstraint>');
  if (http.method === 'GET' && url.searchParams.has('tagging')) return xml('<Tagging><TagSet></TagSet></Tagging>');
  if (http.method === 'GET' && url.searchParams.has('uploadId')) return xml('<ListPartsResult></ListPartsResult>');
  if (http.method === 'GET' && url.searchParams.get('list-type') === '2')
    return xml('<ListBucketResult></ListBucketResult>');
  if (http.method === 'PUT' && http.headers['x-amz-copy-source'])
    return xml('<CopyObjectResult><ETag>"e"</ETag></CopyObjectResult>');
  if (http.method === 'DELETE') return { status: 204, headers: {}, body: '' };
  return { status: 200, headers: { etag: '"e"' }, body: http.method === 'GET' ? 'content' : '' };
}

async function describeSent(send: (c: Clients) => Promise<unknown>): Promise<AwsCall[]> {
  const start = requests.length;

  await send(clients);

  return requests.slice(start).map((http) => {
    const call = describeAwsCall(http, ctx);
    if ('error' in call) throw new Error(`${http.method} ${http.path}: ${call.error}`);
    return call;
  });
}

const pairs = (call: AwsCall) => call.authorizations.map(({ action, resource }) => `${action} ${resource}`);

describe('describeAwsCall with the AWS SDK v3 clients', () => {
  it.each<[string, (c: Clients) => Promise<unknown>, string, string[]]>([
    [
      'DynamoDB GetItem',
      (c) =>
        c.dynamodb.send(new GetItemCommand({ TableName: 'groups', Key: { PK: { S: 'ORG#1' }, SK: { S: 'GRQ#1' } } })),
      'GetItem',
      [`dynamodb:GetItem ${TABLE}`],
    ],
    [
      'DynamoDB PutItem through the DocumentClient',
      (c) => c.documents.send(new PutCommand({ TableName: 'groups', Item: { PK: 'ORG#1', SK: 'GRQ#2' } })),
      'PutItem',
      [`dynamodb:PutItem ${TABLE}`],
    ],
    [
      'DynamoDB UpdateItem on a table ARN',
      (c) =>
        c.dynamodb.send(
          new UpdateItemCommand({
            TableName: TABLE,
            Key: { PK: { S: 'ORG#1' }, SK: { S: 'x' } },
            UpdateExpression: 'SET a = :a',
            ExpressionAttributeValues: { ':a': { N: '1' } },
          }),
        ),
      'UpdateItem',
      [`dynamodb:UpdateItem ${TABLE}`],
    ],
    [
      'DynamoDB DeleteItem',
      (c) =>
        c.dynamodb.send(new DeleteItemCommand({ TableName: 'groups', Key: { PK: { S: 'ORG#1' }, SK: { S: 'x' } } })),
      'DeleteItem',
      [`dynamodb:DeleteItem ${TABLE}`],
    ],
    [
      'DynamoDB Query on an index',
      (c) =>
        c.documents.send(
          new DocumentQueryCommand({
            TableName: 'groups',
            IndexName: 'GSI1',
            KeyConditionExpression: '#pk = :pk AND begins_with(GSI1SK, :sk)',
            ExpressionAttributeNames: { '#pk': 'GSI1PK' },
            ExpressionAttributeValues: { ':pk': 'CH#1', ':sk': 'GRQ#' },
          }),
        ),
      'Query',
      [`dynamodb:Query ${TABLE}/index/GSI1`],
    ],
    [
      'DynamoDB Scan',
      (c) => c.dynamodb.send(new ScanCommand({ TableName: 'groups', Select: 'COUNT' })),
      'Scan',
      [`dynamodb:Scan ${TABLE}`],
    ],
    [
      'DynamoDB BatchGetItem over two tables',
      (c) =>
        c.dynamodb.send(
          new BatchGetItemCommand({
            RequestItems: {
              groups: { Keys: [{ PK: { S: 'ORG#1' }, SK: { S: 'a' } }] },
              reports: { Keys: [{ PK: { S: 'ORG#1' }, SK: { S: 'b' } }] },
            },
          }),
        ),
      'BatchGetItem',
      [`dynamodb:BatchGetItem ${TABLE}`, `dynamodb:BatchGetItem ${TABLE.replace('groups', 'reports')}`],
    ],
    [
      'DynamoDB BatchWriteItem',
      (c) =>
        c.dynamodb.send(
          new BatchWriteItemCommand({
            RequestItems: {
              groups: [
                { PutRequest: { Item: { PK: { S: 'ORG#1' }, SK: { S: 'a' } } } },
                { DeleteRequest: { Key: { PK: { S: 'ORG#2' }, SK: { S: 'b' } } } },
              ],
            },
          }),
        ),
      'BatchWriteItem',
      [`dynamodb:BatchWriteItem ${TABLE}`],
    ],
    [
      'DynamoDB TransactGetItems: GetItem per item',
      (c) =>
        c.dynamodb.send(
          new TransactGetItemsCommand({
            TransactItems: [
              { Get: { TableName: 'groups', Key: { PK: { S: 'ORG#1' }, SK: { S: 'a' } } } },
              { Get: { TableName: 'reports', Key: { PK: { S: 'ORG#1' }, SK: { S: 'b' } } } },
            ],
          }),
        ),
      'TransactGetItems',
      [`dynamodb:GetItem ${TABLE}`, `dynamodb:GetItem ${TABLE.replace('groups', 'reports')}`],
    ],
    [
      'DynamoDB TransactWriteItems: the underlying action per item',
      (c) => {
        const Key = { PK: { S: 'ORG#1' }, SK: { S: 'a' } };
        return c.dynamodb.send(
          new TransactWriteItemsCommand({
            TransactItems: [
              { Put: { TableName: 'groups', Item: Key } },
              {
                Update: {
                  TableName: 'groups',
                  Key,
                  UpdateExpression: 'SET a = :a',
                  ExpressionAttributeValues: { ':a': { N: '1' } },
                },
              },
              { Delete: { TableName: 'groups', Key } },
              { ConditionCheck: { TableName: 'groups', Key, ConditionExpression: 'attribute_exists(PK)' } },
            ],
          }),
        );
      },
      'TransactWriteItems',
      [
        `dynamodb:PutItem ${TABLE}`,
        `dynamodb:UpdateItem ${TABLE}`,
        `dynamodb:DeleteItem ${TABLE}`,
        `dynamodb:ConditionCheckItem ${TABLE}`,
      ],
    ],
    [
      'DynamoDB DescribeTable',
      (c) => c.dynamodb.send(new DescribeTableCommand({ TableName: 'groups' })),
      'DescribeTable',
      [`dynamodb:DescribeTable ${TABLE}`],
    ],
    [
      'DynamoDB CreateTable',
      (c) =>
        c.dynamodb.send(
          new CreateTableCommand({
            TableName: 'groups',
            BillingMode: 'PAY_PER_REQUEST',
            AttributeDefinitions: [{ AttributeName: 'PK', AttributeType: 'S' }],
            KeySchema: [{ AttributeName: 'PK', KeyType: 'HASH' }],
          }),
        ),
      'CreateTable',
      [`dynamodb:CreateTable ${TABLE}`],
    ],
    [
      'DynamoDB DescribeTimeToLive',
      (c) => c.dynamodb.send(new DescribeTimeToLiveCommand({ TableName: 'groups' })),
      'DescribeTimeToLive',
      [`dynamodb:DescribeTimeToLive ${TABLE}`],
    ],
  ])('%s', async (_name, send, operation, expected) => {
    const [call, ...others] = await describeSent(send);

    expect(others).toEqual([]);
    expect(call).toMatchObject({ accessKeyId: ACCESS_KEY_ID, service: 'dynamodb', operation, region: REGION });
    expect(pairs(call!)).toEqual(expected);
  });

  const QUEUE = `arn:aws:sqs:${REGION}:${ACCOUNT}:group-requests`;
  it.each<[string, (c: Clients) => Promise<unknown>, string, string]>([
    [
      'SendMessage',
      (c) => c.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'hello' })),
      'SendMessage',
      'sqs:SendMessage',
    ],
    [
      'SendMessageBatch',
      (c) => c.sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: [{ Id: '1', MessageBody: 'a' }] })),
      'SendMessageBatch',
      'sqs:SendMessage',
    ],
    [
      'ReceiveMessage',
      (c) => c.sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 })),
      'ReceiveMessage',
      'sqs:ReceiveMessage',
    ],
    [
      'DeleteMessage',
      (c) => c.sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: 'r' })),
      'DeleteMessage',
      'sqs:DeleteMessage',
    ],
    [
      'DeleteMessageBatch',
      (c) =>
        c.sqs.send(new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries: [{ Id: '1', ReceiptHandle: 'r' }] })),
      'DeleteMessageBatch',
      'sqs:DeleteMessage',
    ],
    [
      'ChangeMessageVisibility',
      (c) =>
        c.sqs.send(
          new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: 'r', VisibilityTimeout: 5 }),
        ),
      'ChangeMessageVisibility',
      'sqs:ChangeMessageVisibility',
    ],
    [
      'ChangeMessageVisibilityBatch',
      (c) =>
        c.sqs.send(
          new ChangeMessageVisibilityBatchCommand({
            QueueUrl: queueUrl,
            Entries: [{ Id: '1', ReceiptHandle: 'r', VisibilityTimeout: 5 }],
          }),
        ),
      'ChangeMessageVisibilityBatch',
      'sqs:ChangeMessageVisibility',
    ],
    [
      'GetQueueAttributes',
      (c) => c.sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['All'] })),
      'GetQueueAttributes',
      'sqs:GetQueueAttributes',
    ],
    [
      'GetQueueUrl',
      (c) => c.sqs.send(new GetQueueUrlCommand({ QueueName: 'group-requests' })),
      'GetQueueUrl',
      'sqs:GetQueueUrl',
    ],
    ['PurgeQueue', (c) => c.sqs.send(new PurgeQueueCommand({ QueueUrl: queueUrl })), 'PurgeQueue', 'sqs:PurgeQueue'],
  ])('SQS %s', async (_name, send, operation, action) => {
    const [call] = await describeSent(send);

    expect(call).toMatchObject({ accessKeyId: ACCESS_KEY_ID, service: 'sqs', operation });
    expect(pairs(call!)).toEqual([`${action} ${QUEUE}`]);
  });

  it('EventBridge PutEvents: one authorization per bus and per source/detail-type, with events:* keys', async () => {
    const bus = (name: string) => `arn:aws:events:${REGION}:${ACCOUNT}:event-bus/${name}`;

    const [call] = await describeSent((c) =>
      c.events.send(
        new PutEventsCommand({
          Entries: [
            { EventBusName: 'wp-crm', Source: 'wp-crm', DetailType: 'group.created', Detail: '{}' },
            { EventBusName: bus('wp-crm'), Source: 'wp-crm', DetailType: 'group.created', Detail: '{}' },
            { EventBusName: 'wp-crm', Source: 'wp-crm', DetailType: 'group.failed', Detail: '{}' },
            { Source: 'wp-crm', DetailType: 'group.created', Detail: '{}' },
          ],
        }),
      ),
    );

    expect(call).toMatchObject({ service: 'events', operation: 'PutEvents' });
    expect(pairs(call!)).toEqual([
      `events:PutEvents ${bus('wp-crm')}`,
      `events:PutEvents ${bus('wp-crm')}`,
      `events:PutEvents ${bus('default')}`,
    ]);
    expect(call!.authorizations[1]!.context).toMatchObject({
      'events:source': 'wp-crm',
      'events:detail-type': 'group.failed',
    });
  });

  const unknownSecret = `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:wp-crm/missing`;
  it.each<[string, (c: Clients) => Promise<unknown>, string, string[]]>([
    [
      'GetSecretValue by name',
      (c) => c.secrets.send(new GetSecretValueCommand({ SecretId: 'wp-crm/jwt' })),
      'GetSecretValue',
      [`secretsmanager:GetSecretValue ${SECRET}`],
    ],
    [
      'GetSecretValue by partial ARN',
      (c) =>
        c.secrets.send(
          new GetSecretValueCommand({ SecretId: `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:wp-crm/jwt` }),
        ),
      'GetSecretValue',
      [`secretsmanager:GetSecretValue ${SECRET}`],
    ],
    [
      'GetSecretValue of an unknown secret',
      (c) => c.secrets.send(new GetSecretValueCommand({ SecretId: 'wp-crm/missing' })),
      'GetSecretValue',
      [`secretsmanager:GetSecretValue ${unknownSecret}`],
    ],
    [
      'PutSecretValue',
      (c) => c.secrets.send(new PutSecretValueCommand({ SecretId: SECRET, SecretString: '{}' })),
      'PutSecretValue',
      [`secretsmanager:PutSecretValue ${SECRET}`],
    ],
    [
      'DescribeSecret',
      (c) => c.secrets.send(new DescribeSecretCommand({ SecretId: SECRET })),
      'DescribeSecret',
      [`secretsmanager:DescribeSecret ${SECRET}`],
    ],
    [
      'UpdateSecret',
      (c) => c.secrets.send(new UpdateSecretCommand({ SecretId: 'wp-crm/jwt', SecretString: '{}' })),
      'UpdateSecret',
      [`secretsmanager:UpdateSecret ${SECRET}`],
    ],
    [
      'CreateSecret',
      (c) => c.secrets.send(new CreateSecretCommand({ Name: 'wp-crm/dev/channels/ch_1', SecretString: 't' })),
      'CreateSecret',
      [
        `secretsmanager:CreateSecret arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:wp-crm/dev/channels/ch_1-NeW123`,
      ],
    ],
    [
      'BatchGetSecretValue',
      (c) => c.secrets.send(new BatchGetSecretValueCommand({ SecretIdList: ['wp-crm/jwt', 'wp-crm/missing'] })),
      'BatchGetSecretValue',
      [
        'secretsmanager:BatchGetSecretValue *',
        `secretsmanager:GetSecretValue ${SECRET}`,
        `secretsmanager:GetSecretValue ${unknownSecret}`,
      ],
    ],
  ])('Secrets Manager %s', async (_name, send, operation, expected) => {
    const [call] = await describeSent(send);

    expect(call).toMatchObject({ accessKeyId: ACCESS_KEY_ID, service: 'secretsmanager', operation });
    expect(pairs(call!)).toEqual(expected);
  });

  const parameter = (name: string) => `arn:aws:ssm:${REGION}:${ACCOUNT}:parameter/${name}`;
  it.each<[string, (c: Clients) => Promise<unknown>, string, string[]]>([
    [
      'GetParameter with a leading slash',
      (c) => c.ssm.send(new GetParameterCommand({ Name: '/wp/jwks' })),
      'GetParameter',
      [`ssm:GetParameter ${parameter('wp/jwks')}`],
    ],
    [
      'GetParameter with a version selector',
      (c) => c.ssm.send(new GetParameterCommand({ Name: '/wp/jwks:3' })),
      'GetParameter',
      [`ssm:GetParameter ${parameter('wp/jwks')}`],
    ],
    [
      'GetParameters',
      (c) => c.ssm.send(new GetParametersCommand({ Names: ['/wp/jwks', 'flat'] })),
      'GetParameters',
      [`ssm:GetParameters ${parameter('wp/jwks')}`, `ssm:GetParameters ${parameter('flat')}`],
    ],
    [
      'PutParameter',
      (c) => c.ssm.send(new PutParameterCommand({ Name: '/wp/jwks', Value: '{}', Type: 'String', Overwrite: true })),
      'PutParameter',
      [`ssm:PutParameter ${parameter('wp/jwks')}`],
    ],
    [
      'GetParameterHistory',
      (c) => c.ssm.send(new GetParameterHistoryCommand({ Name: '/wp/jwks' })),
      'GetParameterHistory',
      [`ssm:GetParameterHistory ${parameter('wp/jwks')}`],
    ],
    [
      'DescribeParameters',
      (c) => c.ssm.send(new DescribeParametersCommand({})),
      'DescribeParameters',
      ['ssm:DescribeParameters *'],
    ],
    [
      'DeleteParameter without a slash',
      (c) => c.ssm.send(new DeleteParameterCommand({ Name: 'flat' })),
      'DeleteParameter',
      [`ssm:DeleteParameter ${parameter('flat')}`],
    ],
  ])('SSM %s', async (_name, send, operation, expected) => {
    const [call] = await describeSent(send);

    expect(call).toMatchObject({ accessKeyId: ACCESS_KEY_ID, service: 'ssm', operation });
    expect(pairs(call!)).toEqual(expected);
  });

  it.each<[string, (c: Clients) => Promise<unknown>, string, string[]]>([
    [
      'Encrypt by alias',
      (c) =>
        c.kms.send(
          new EncryptCommand({
            KeyId: 'alias/webhook-secrets',
            Plaintext: Buffer.from('s'),
            EncryptionContext: { purpose: 'webhook' },
          }),
        ),
      'Encrypt',
      [`kms:Encrypt ${KEY}`],
    ],
    [
      'Decrypt without a key id',
      (c) => c.kms.send(new DecryptCommand({ CiphertextBlob: CIPHERTEXT })),
      'Decrypt',
      [`kms:Decrypt ${KEY}`],
    ],
    [
      'GenerateDataKey by key id',
      (c) =>
        c.kms.send(new GenerateDataKeyCommand({ KeyId: '1234abcd-12ab-34cd-56ef-1234567890ab', KeySpec: 'AES_256' })),
      'GenerateDataKey',
      [`kms:GenerateDataKey ${KEY}`],
    ],
    [
      'ReEncrypt: from the source key, to the destination key',
      (c) => c.kms.send(new ReEncryptCommand({ CiphertextBlob: CIPHERTEXT, DestinationKeyId: OTHER_KEY })),
      'ReEncrypt',
      [`kms:ReEncryptFrom ${KEY}`, `kms:ReEncryptTo ${OTHER_KEY}`],
    ],
    [
      'DescribeKey',
      (c) => c.kms.send(new DescribeKeyCommand({ KeyId: KEY })),
      'DescribeKey',
      [`kms:DescribeKey ${KEY}`],
    ],
  ])('KMS %s', async (_name, send, operation, expected) => {
    const [call] = await describeSent(send);

    expect(call).toMatchObject({ accessKeyId: ACCESS_KEY_ID, service: 'kms', operation });
    expect(pairs(call!)).toEqual(expected);
  });

  const BUCKET = 'arn:aws:s3:::wp-crm-reports';
  it.each<[string, (c: Clients) => Promise<unknown>, string, string[]]>([
    [
      'PutObject with a key to encode',
      (c) => c.s3.send(new PutObjectCommand({ Bucket: 'wp-crm-reports', Key: 'org 1/été+report.csv', Body: 'a,b' })),
      'PutObject',
      [`s3:PutObject ${BUCKET}/org 1/été+report.csv`],
    ],
    [
      'PutObject with dot segments in the key, kept as written',
      (c) => c.s3.send(new PutObjectCommand({ Bucket: 'wp-crm-reports', Key: 'org/../other/./r.csv', Body: 'a' })),
      'PutObject',
      [`s3:PutObject ${BUCKET}/org/../other/./r.csv`],
    ],
    [
      'CopyObject: writes the destination, reads the source',
      (c) =>
        c.s3.send(
          new CopyObjectCommand({ Bucket: 'wp-crm-reports', Key: 'copy.csv', CopySource: 'wp-crm-inbox/in%20put.csv' }),
        ),
      'CopyObject',
      [`s3:PutObject ${BUCKET}/copy.csv`, 's3:GetObject arn:aws:s3:::wp-crm-inbox/in put.csv'],
    ],
    [
      'GetObject',
      (c) => c.s3.send(new GetObjectCommand({ Bucket: 'wp-crm-reports', Key: 'r/1.csv' })),
      'GetObject',
      [`s3:GetObject ${BUCKET}/r/1.csv`],
    ],
    [
      'HeadObject',
      (c) => c.s3.send(new HeadObjectCommand({ Bucket: 'wp-crm-reports', Key: 'r/1.csv' })),
      'HeadObject',
      [`s3:GetObject ${BUCKET}/r/1.csv`],
    ],
    [
      'GetObject of a version',
      (c) => c.s3.send(new GetObjectCommand({ Bucket: 'wp-crm-reports', Key: 'r/1.csv', VersionId: 'v1' })),
      'GetObject',
      [`s3:GetObjectVersion ${BUCKET}/r/1.csv`],
    ],
    [
      'DeleteObject',
      (c) => c.s3.send(new DeleteObjectCommand({ Bucket: 'wp-crm-reports', Key: 'r/1.csv' })),
      'DeleteObject',
      [`s3:DeleteObject ${BUCKET}/r/1.csv`],
    ],
    [
      'DeleteObjects: DeleteObject per key',
      (c) =>
        c.s3.send(
          new DeleteObjectsCommand({
            Bucket: 'wp-crm-reports',
            Delete: { Objects: [{ Key: 'r/1.csv' }, { Key: 'r/a&b.csv' }] },
          }),
        ),
      'DeleteObjects',
      [`s3:DeleteObject ${BUCKET}/r/1.csv`, `s3:DeleteObject ${BUCKET}/r/a&b.csv`],
    ],
    [
      'ListObjectsV2',
      (c) => c.s3.send(new ListObjectsV2Command({ Bucket: 'wp-crm-reports', Prefix: 'org/' })),
      'ListObjectsV2',
      [`s3:ListBucket ${BUCKET}`],
    ],
    [
      'HeadBucket',
      (c) => c.s3.send(new HeadBucketCommand({ Bucket: 'wp-crm-reports' })),
      'HeadBucket',
      [`s3:ListBucket ${BUCKET}`],
    ],
    [
      'GetBucketLocation',
      (c) => c.s3.send(new GetBucketLocationCommand({ Bucket: 'wp-crm-reports' })),
      'GetBucketLocation',
      [`s3:GetBucketLocation ${BUCKET}`],
    ],
    [
      'CreateBucket',
      (c) => c.s3.send(new CreateBucketCommand({ Bucket: 'wp-crm-reports' })),
      'CreateBucket',
      [`s3:CreateBucket ${BUCKET}`],
    ],
    [
      'PutBucketTagging',
      (c) =>
        c.s3.send(
          new PutBucketTaggingCommand({
            Bucket: 'wp-crm-reports',
            Tagging: { TagSet: [{ Key: 'app', Value: 'wp-crm' }] },
          }),
        ),
      'PutBucketTagging',
      [`s3:PutBucketTagging ${BUCKET}`],
    ],
    [
      'GetBucketTagging',
      (c) => c.s3.send(new GetBucketTaggingCommand({ Bucket: 'wp-crm-reports' })),
      'GetBucketTagging',
      [`s3:GetBucketTagging ${BUCKET}`],
    ],
    [
      'CreateMultipartUpload',
      (c) => c.s3.send(new CreateMultipartUploadCommand({ Bucket: 'wp-crm-reports', Key: 'big.csv' })),
      'CreateMultipartUpload',
      [`s3:PutObject ${BUCKET}/big.csv`],
    ],
    [
      'UploadPart',
      (c) =>
        c.s3.send(
          new UploadPartCommand({
            Bucket: 'wp-crm-reports',
            Key: 'big.csv',
            UploadId: 'up-1',
            PartNumber: 1,
            Body: 'x',
          }),
        ),
      'UploadPart',
      [`s3:PutObject ${BUCKET}/big.csv`],
    ],
    [
      'CompleteMultipartUpload',
      (c) =>
        c.s3.send(
          new CompleteMultipartUploadCommand({
            Bucket: 'wp-crm-reports',
            Key: 'big.csv',
            UploadId: 'up-1',
            MultipartUpload: { Parts: [{ PartNumber: 1, ETag: '"e"' }] },
          }),
        ),
      'CompleteMultipartUpload',
      [`s3:PutObject ${BUCKET}/big.csv`],
    ],
    [
      'AbortMultipartUpload',
      (c) => c.s3.send(new AbortMultipartUploadCommand({ Bucket: 'wp-crm-reports', Key: 'big.csv', UploadId: 'up-1' })),
      'AbortMultipartUpload',
      [`s3:AbortMultipartUpload ${BUCKET}/big.csv`],
    ],
    [
      'ListParts',
      (c) => c.s3.send(new ListPartsCommand({ Bucket: 'wp-crm-reports', Key: 'big.csv', UploadId: 'up-1' })),
      'ListParts',
      [`s3:ListMultipartUploadParts ${BUCKET}/big.csv`],
    ],
  ])('S3 %s', async (_name, send, operation, expected) => {
    const [call, ...others] = await describeSent(send);

    expect(others).toEqual([]);
    expect(call).toMatchObject({ accessKeyId: ACCESS_KEY_ID, service: 's3', operation, region: REGION });
    expect(pairs(call!)).toEqual(expected);
  });

  it('S3 multipart Upload of lib-storage: create, two parts, complete, all s3:PutObject on the object', async () => {
    const body = Buffer.alloc(5 * 1024 * 1024 + 1024, 'a');

    const calls = await describeSent((c) =>
      new Upload({ client: c.s3, params: { Bucket: 'wp-crm-reports', Key: 'exports/big.csv', Body: body } }).done(),
    );

    expect(calls.map((call) => call.operation).sort()).toEqual([
      'CompleteMultipartUpload',
      'CreateMultipartUpload',
      'UploadPart',
      'UploadPart',
    ]);
    expect(new Set(calls.flatMap(pairs))).toEqual(new Set([`s3:PutObject ${BUCKET}/exports/big.csv`]));
    expect(new Set(calls.map((call) => call.accessKeyId))).toEqual(new Set([ACCESS_KEY_ID]));
  });

  it('S3 pre-signed GET URL: identity, signing time and expiry from the query string', async () => {
    const url = await getSignedUrl(clients.s3, new GetObjectCommand({ Bucket: 'wp-crm-reports', Key: 'r/1.csv' }), {
      expiresIn: 300,
    });

    const [call] = await describeSent(() => fetch(url).then((response) => response.text()));

    expect(call).toMatchObject({
      accessKeyId: ACCESS_KEY_ID,
      service: 's3',
      operation: 'GetObject',
      presigned: { expiresSeconds: 300 },
    });
    expect(Math.abs(call!.presigned!.signedAt.getTime() - Date.now())).toBeLessThan(60_000);
    expect(pairs(call!)).toEqual([`s3:GetObject ${BUCKET}/r/1.csv`]);
    expect(call!.authorizations[0]!.context['s3:authType']).toBe('REST-QUERY-STRING');
  });
});

describe('describeAwsCall condition keys', () => {
  it('adds the common keys to every authorization', async () => {
    const [call] = await describeSent((c) => c.sqs.send(new PurgeQueueCommand({ QueueUrl: queueUrl })));

    expect(call!.authorizations[0]!.context).toMatchObject({
      'aws:SecureTransport': true,
      'aws:CurrentTime': '2025-03-01T10:00:00Z',
      'aws:EpochTime': 1740823200,
      'aws:RequestedRegion': REGION,
      'aws:PrincipalArn': `arn:aws:iam::${ACCOUNT}:role/S-FnServiceRole1A2B3C`,
      'aws:PrincipalAccount': ACCOUNT,
      'aws:PrincipalType': 'AssumedRole',
    });
  });

  it('gives dynamodb:LeadingKeys of an item and of a Query key condition, and the request options', async () => {
    const [get] = await describeSent((c) =>
      c.dynamodb.send(
        new GetItemCommand({
          TableName: 'groups',
          Key: { PK: { S: 'ORG#1' }, SK: { S: 'a' } },
          ReturnConsumedCapacity: 'TOTAL',
          ProjectionExpression: '#s, a.b',
          ExpressionAttributeNames: { '#s': 'status' },
        }),
      ),
    );
    const [query] = await describeSent((c) =>
      c.dynamodb.send(
        new QueryCommand({
          TableName: 'groups',
          KeyConditionExpression: 'PK = :pk and SK between :a and :b',
          ExpressionAttributeValues: { ':pk': { S: 'ORG#9' }, ':a': { S: 'a' }, ':b': { S: 'b' } },
          Select: 'ALL_ATTRIBUTES',
        }),
      ),
    );

    expect(get!.authorizations[0]!.context).toMatchObject({
      'dynamodb:LeadingKeys': ['ORG#1'],
      'dynamodb:ReturnConsumedCapacity': 'TOTAL',
      'dynamodb:Attributes': ['status', 'a'],
    });
    expect(query!.authorizations[0]!.context).toMatchObject({
      'dynamodb:LeadingKeys': ['ORG#9'],
      'dynamodb:Select': 'ALL_ATTRIBUTES',
    });
  });

  it('gives the KMS encryption context and caller account', async () => {
    const [call] = await describeSent((c) =>
      c.kms.send(
        new EncryptCommand({
          KeyId: 'alias/webhook-secrets',
          Plaintext: Buffer.from('s'),
          EncryptionContext: { purpose: 'webhook' },
        }),
      ),
    );

    expect(call!.authorizations[0]!.context).toMatchObject({
      'kms:EncryptionContext:purpose': 'webhook',
      'kms:EncryptionContextKeys': ['purpose'],
      'kms:CallerAccount': ACCOUNT,
      'kms:RequestAlias': 'alias/webhook-secrets',
    });
  });

  it('gives s3:prefix of a listing', async () => {
    const [call] = await describeSent((c) =>
      c.s3.send(new ListObjectsV2Command({ Bucket: 'wp-crm-reports', Prefix: 'org/1/', MaxKeys: 5 })),
    );

    expect(call!.authorizations[0]!.context).toMatchObject({
      's3:prefix': 'org/1/',
      's3:max-keys': 5,
      's3:authType': 'REST-HEADER',
    });
  });
});

describe('describeAwsCall on hand-made requests', () => {
  const signed = (service: string, extra: Partial<HttpRequest> & { path: string }): HttpRequest => ({
    method: 'POST',
    body: Buffer.alloc(0),
    ...extra,
    headers: {
      host: '127.0.0.1:4566',
      'x-amz-date': '20250301T100000Z',
      authorization: `AWS4-HMAC-SHA256 Credential=${ACCESS_KEY_ID}/20250301/${REGION}/${service}/aws4_request, SignedHeaders=host;x-amz-date, Signature=abc`,
      ...extra.headers,
    },
  });

  it.each<[string, string, string]>([
    [
      'a function name and Qualifier',
      '/2015-03-31/functions/wp-crm-dev-report-worker/invocations?Qualifier=live',
      'wp-crm-dev-report-worker:live',
    ],
    [
      'a function ARN',
      `/2015-03-31/functions/${encodeURIComponent(`arn:aws:lambda:${REGION}:${ACCOUNT}:function:report`)}/invocations`,
      'report',
    ],
    [
      'a partial ARN with a qualifier',
      `/2015-03-31/functions/${encodeURIComponent(`${ACCOUNT}:function:report:3`)}/invocations`,
      'report:3',
    ],
  ])('Lambda Invoke by %s', (_name, path, functionName) => {
    const call = describeAwsCall(signed('lambda', { path, body: Buffer.from('{}') }), ctx);

    expect(call).toMatchObject({
      accessKeyId: ACCESS_KEY_ID,
      service: 'lambda',
      operation: 'Invoke',
      authorizations: [
        { action: 'lambda:InvokeFunction', resource: `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${functionName}` },
      ],
    });
  });

  it('reads the bucket of a virtual-hosted S3 request from the Host header', () => {
    const call = describeAwsCall(
      signed('s3', { method: 'GET', path: '/org%201/r.csv', headers: { host: 'wp-crm-reports.localhost:4566' } }),
      ctx,
    );

    expect(call).toMatchObject({
      operation: 'GetObject',
      authorizations: [{ action: 's3:GetObject', resource: 'arn:aws:s3:::wp-crm-reports/org 1/r.csv' }],
    });
  });

  it.each<[string, HttpRequest, string, string | undefined]>([
    ['an unsigned request', { method: 'POST', path: '/', headers: {}, body: Buffer.alloc(0) }, 'unsigned', undefined],
    [
      'an unknown JSON target',
      signed('dynamodb', { path: '/', headers: { 'x-amz-target': 'DynamoDBStreams_20120810.GetRecords' } }),
      'unsupported',
      'DynamoDBStreams_20120810.GetRecords',
    ],
    [
      'an unknown operation of a known service',
      signed('dynamodb', {
        path: '/',
        headers: { 'x-amz-target': 'DynamoDB_20120810.RestoreTableFromBackup' },
        body: Buffer.from('{}'),
      }),
      'unsupported',
      'dynamodb:RestoreTableFromBackup',
    ],
    [
      'an unknown service',
      signed('sns', { path: '/', body: Buffer.from('Action=Publish') }),
      'unsupported',
      'sns POST /',
    ],
    [
      'an unknown S3 sub-resource',
      signed('s3', { method: 'PUT', path: '/wp-crm-reports?cors' }),
      'unsupported',
      's3 PUT bucket?cors',
    ],
    [
      'a body that is not JSON',
      signed('sqs', { path: '/', headers: { 'x-amz-target': 'AmazonSQS.SendMessage' }, body: Buffer.from('{') }),
      'malformed',
      undefined,
    ],
    [
      'a missing QueueUrl',
      signed('sqs', { path: '/', headers: { 'x-amz-target': 'AmazonSQS.SendMessage' }, body: Buffer.from('{}') }),
      'malformed',
      undefined,
    ],
    [
      'a target signed for another service',
      signed('sqs', { path: '/', headers: { 'x-amz-target': 'TrentService.Decrypt' }, body: Buffer.from('{}') }),
      'malformed',
      undefined,
    ],
  ])('reports %s', (_name, http, reason, target) => {
    const call = describeAwsCall(http, ctx);

    expect(call).toMatchObject({ reason, ...(target ? { target } : {}) });
    expect('error' in call && call.error).toBeTruthy();
  });
});
