import { randomBytes } from 'node:crypto';
import { type CallEnv, MalformedCallError, type ServiceAuthorization, type ServiceDescription } from './call-model.ts';
import type { ContextValue } from './policy.ts';

type Body = Record<string, unknown>;
type Context = Record<string, ContextValue | undefined>;
type Describer = (body: Body, env: CallEnv) => ServiceAuthorization[];

/** `X-Amz-Target` prefix → SigV4 signing name of the AWS JSON protocol services this model knows. */
export const JSON_TARGET_PREFIXES: Readonly<Record<string, string>> = {
  DynamoDB_20120810: 'dynamodb',
  AmazonSQS: 'sqs',
  AWSEvents: 'events',
  secretsmanager: 'secretsmanager',
  AmazonSSM: 'ssm',
  TrentService: 'kms',
};

/** Describes one AWS JSON protocol operation (its body already parsed). */
export function describeJsonCall(service: string, operation: string, body: Body, env: CallEnv): ServiceDescription {
  const describer = DESCRIBERS[service]?.[operation];
  if (!describer) {
    const target = `${service}:${operation}`;
    return { error: `unsupported operation ${operation} of ${service}`, reason: 'unsupported', target };
  }
  return { operation, authorizations: describer(body, env) };
}

const dynamodb: Record<string, Describer> = {
  GetItem: (body, env) => [itemCall('dynamodb:GetItem', body, env, [body.Key], projection(body))],
  PutItem: (body, env) => [
    itemCall('dynamodb:PutItem', body, env, [body.Item], {
      'dynamodb:Attributes': Object.keys(asObject(body.Item)),
      ...returnValues(body),
    }),
  ],
  UpdateItem: (body, env) => [itemCall('dynamodb:UpdateItem', body, env, [body.Key], returnValues(body))],
  DeleteItem: (body, env) => [itemCall('dynamodb:DeleteItem', body, env, [body.Key], returnValues(body))],
  Query: (body, env) => {
    const table = requiredString(body, 'TableName');
    const index = optionalString(body, 'IndexName');
    const key = env.ctx.partitionKeyName?.(tableName(table), index);
    const leading = key === undefined ? undefined : queryPartitionValue(body, key);
    return [
      {
        action: 'dynamodb:Query',
        resource: tableResource(table, env, index),
        context: {
          ...requestOptions(body),
          ...projection(body),
          'dynamodb:Select': selectOf(body, index),
          'dynamodb:LeadingKeys': leading === undefined ? undefined : [leading],
        },
      },
    ];
  },
  Scan: (body, env) => {
    const table = requiredString(body, 'TableName');
    const index = optionalString(body, 'IndexName');
    return [
      {
        action: 'dynamodb:Scan',
        resource: tableResource(table, env, index),
        context: { ...requestOptions(body), ...projection(body), 'dynamodb:Select': selectOf(body, index) },
      },
    ];
  },
  BatchGetItem: (body, env) =>
    Object.entries(asObject(body.RequestItems)).map(([table, request]) => {
      const keys = asArray(asObject(request).Keys);
      return {
        action: 'dynamodb:BatchGetItem',
        resource: tableResource(table, env),
        context: { ...requestOptions(body), ...projection(asObject(request)), ...leadingKeys(table, keys, env) },
      };
    }),
  BatchWriteItem: (body, env) =>
    Object.entries(asObject(body.RequestItems)).map(([table, writes]) => {
      const keys = asArray(writes).map((write) => {
        const { PutRequest, DeleteRequest } = asObject(write);
        return PutRequest ? asObject(PutRequest).Item : asObject(DeleteRequest).Key;
      });
      return {
        action: 'dynamodb:BatchWriteItem',
        resource: tableResource(table, env),
        context: { ...requestOptions(body), ...leadingKeys(table, keys, env) },
      };
    }),
  TransactGetItems: (body, env) =>
    asArray(body.TransactItems).map((item) => {
      const get = asObject(asObject(item).Get);
      return transactItem('dynamodb:GetItem', 'TransactGetItems', get, get.Key, body, env);
    }),
  TransactWriteItems: (body, env) =>
    asArray(body.TransactItems).map((item) => {
      const { Put, Update, Delete, ConditionCheck } = asObject(item);
      if (Put)
        return transactItem('dynamodb:PutItem', 'TransactWriteItems', asObject(Put), asObject(Put).Item, body, env);
      if (Update)
        return transactItem(
          'dynamodb:UpdateItem',
          'TransactWriteItems',
          asObject(Update),
          asObject(Update).Key,
          body,
          env,
        );
      if (Delete)
        return transactItem(
          'dynamodb:DeleteItem',
          'TransactWriteItems',
          asObject(Delete),
          asObject(Delete).Key,
          body,
          env,
        );
      const check = asObject(ConditionCheck);
      return transactItem('dynamodb:ConditionCheckItem', 'TransactWriteItems', check, check.Key, body, env);
    }),
  DescribeTable: tableAction('dynamodb:DescribeTable'),
  CreateTable: tableAction('dynamodb:CreateTable'),
  DeleteTable: tableAction('dynamodb:DeleteTable'),
  UpdateTable: tableAction('dynamodb:UpdateTable'),
  DescribeTimeToLive: tableAction('dynamodb:DescribeTimeToLive'),
  UpdateTimeToLive: tableAction('dynamodb:UpdateTimeToLive'),
  ListTables: () => [{ action: 'dynamodb:ListTables', resource: '*' }],
};

function tableAction(action: string): Describer {
  return (body, env) => [{ action, resource: tableResource(requiredString(body, 'TableName'), env) }];
}

function itemCall(
  action: string,
  body: Body,
  env: CallEnv,
  keys: unknown[],
  extra: Context = {},
): ServiceAuthorization {
  const table = requiredString(body, 'TableName');
  return {
    action,
    resource: tableResource(table, env),
    context: { ...requestOptions(body), ...extra, ...leadingKeys(table, keys, env) },
  };
}

function transactItem(
  action: string,
  enclosing: string,
  item: Body,
  key: unknown,
  body: Body,
  env: CallEnv,
): ServiceAuthorization {
  const table = requiredString(item, 'TableName');
  return {
    action,
    resource: tableResource(table, env),
    context: {
      'dynamodb:EnclosingOperation': enclosing,
      'dynamodb:ReturnConsumedCapacity': optionalString(body, 'ReturnConsumedCapacity'),
      ...leadingKeys(table, [key], env),
    },
  };
}

/** A table name or ARN; with an index, `table/<T>/index/<I>`. */
function tableResource(table: string, env: CallEnv, index?: string): string {
  const arn = table.startsWith('arn:') ? table : `arn:aws:dynamodb:${env.region}:${env.account}:table/${table}`;
  return index === undefined ? arn : `${arn}/index/${index}`;
}

function tableName(table: string): string {
  return table.startsWith('arn:') ? (table.split(':table/')[1] ?? table) : table;
}

function requestOptions(body: Body): Context {
  return {
    'dynamodb:ReturnConsumedCapacity': optionalString(body, 'ReturnConsumedCapacity'),
    'dynamodb:ReturnValues': optionalString(body, 'ReturnValues'),
    'dynamodb:Select': optionalString(body, 'Select'),
  };
}

/**
 * `dynamodb:Select` of a Query or Scan: the request's, else what DynamoDB takes it to be (SPECIFIC_ATTRIBUTES with a
 * projection, else ALL_PROJECTED_ATTRIBUTES on an index and ALL_ATTRIBUTES on a table). The key is in the context
 * either way (DynamoDB Developer Guide, "Using IAM policy conditions for fine-grained access control": "the Select
 * parameter always has a value (ALL_ATTRIBUTES, unless otherwise specified)").
 */
function selectOf(body: Body, index: string | undefined): string {
  const given = optionalString(body, 'Select');
  if (given !== undefined) return given;
  if (body.ProjectionExpression !== undefined || body.AttributesToGet !== undefined) return 'SPECIFIC_ATTRIBUTES';
  return index === undefined ? 'ALL_ATTRIBUTES' : 'ALL_PROJECTED_ATTRIBUTES';
}

/** `dynamodb:ReturnValues` of a write: "always has a value (NONE unless otherwise specified)" (same guide). */
function returnValues(body: Body): Context {
  return { 'dynamodb:ReturnValues': optionalString(body, 'ReturnValues') ?? 'NONE' };
}

/** `dynamodb:Attributes` from `AttributesToGet` or the top-level names of a `ProjectionExpression`. */
function projection(body: Body): Context {
  if (Array.isArray(body.AttributesToGet)) return { 'dynamodb:Attributes': body.AttributesToGet.map(String) };
  const expression = optionalString(body, 'ProjectionExpression');
  if (expression === undefined) return {};
  const names = asObject(body.ExpressionAttributeNames);
  const attributes = expression.split(',').map((path) => {
    const head = path.trim().split(/[.[]/)[0]!;
    return head.startsWith('#') ? String(names[head] ?? head) : head;
  });
  return { 'dynamodb:Attributes': [...new Set(attributes)] };
}

/** `dynamodb:LeadingKeys`: the partition key values, when the context knows the table's partition key name. */
function leadingKeys(table: string, keys: readonly unknown[], env: CallEnv): Context {
  const key = env.ctx.partitionKeyName?.(tableName(table));
  if (key === undefined) return {};
  const values = keys.map((item) => attributeText(asObject(item)[key])).filter((value) => value !== undefined);
  return values.length > 0 ? { 'dynamodb:LeadingKeys': [...new Set(values)] } : {};
}

/** The value a Query's key condition sets the partition key to (`#pk = :pk`, `PK = :v`, or legacy KeyConditions). */
function queryPartitionValue(body: Body, key: string): string | undefined {
  const legacy = asObject(body.KeyConditions)[key];
  if (legacy !== undefined) return attributeText(asArray(asObject(legacy).AttributeValueList)[0]);
  const expression = optionalString(body, 'KeyConditionExpression');
  if (expression === undefined) return undefined;
  const names = asObject(body.ExpressionAttributeNames);
  const values = asObject(body.ExpressionAttributeValues);
  for (const clause of expression.split(/\band\b/i)) {
    const match = /^\s*\(?\s*([#\w.-]+)\s*=\s*(:[\w-]+)\s*\)?\s*$/.exec(clause);
    if (!match) continue;
    const name = match[1]!.startsWith('#') ? names[match[1]!] : match[1];
    if (name === key) return attributeText(values[match[2]!]);
  }
  return undefined;
}

function attributeText(value: unknown): string | undefined {
  const attribute = asObject(value);
  const text = attribute.S ?? attribute.N ?? attribute.B;
  return typeof text === 'string' ? text : undefined;
}

const sqs: Record<string, Describer> = {
  SendMessage: queueAction('sqs:SendMessage'),
  SendMessageBatch: queueAction('sqs:SendMessage'),
  ReceiveMessage: queueAction('sqs:ReceiveMessage'),
  DeleteMessage: queueAction('sqs:DeleteMessage'),
  DeleteMessageBatch: queueAction('sqs:DeleteMessage'),
  ChangeMessageVisibility: queueAction('sqs:ChangeMessageVisibility'),
  ChangeMessageVisibilityBatch: queueAction('sqs:ChangeMessageVisibility'),
  GetQueueAttributes: queueAction('sqs:GetQueueAttributes'),
  SetQueueAttributes: queueAction('sqs:SetQueueAttributes'),
  PurgeQueue: queueAction('sqs:PurgeQueue'),
  DeleteQueue: queueAction('sqs:DeleteQueue'),
  GetQueueUrl: (body, env) => {
    const owner = optionalString(body, 'QueueOwnerAWSAccountId') ?? env.account;
    return [
      {
        action: 'sqs:GetQueueUrl',
        resource: `arn:aws:sqs:${env.region}:${owner}:${requiredString(body, 'QueueName')}`,
      },
    ];
  },
  CreateQueue: (body, env) => [
    {
      action: 'sqs:CreateQueue',
      resource: `arn:aws:sqs:${env.region}:${env.account}:${requiredString(body, 'QueueName')}`,
      context: tagContext(body.tags),
    },
  ],
  ListQueues: () => [{ action: 'sqs:ListQueues', resource: '*' }],
};

function queueAction(action: string): Describer {
  return (body, env) => [{ action, resource: queueArn(requiredString(body, 'QueueUrl'), env) }];
}

/** `http://host/<account>/<name>` → `arn:aws:sqs:<region>:<account>:<name>` (any other path: the context's account). */
function queueArn(queueUrl: string, env: CallEnv): string {
  let segments: string[];
  try {
    segments = new URL(queueUrl).pathname.split('/').filter(Boolean);
  } catch {
    throw new MalformedCallError(`QueueUrl is not a URL: ${queueUrl}`);
  }
  const name = segments.at(-1);
  if (!name) throw new MalformedCallError(`QueueUrl names no queue: ${queueUrl}`);
  const owner = segments.length >= 2 && /^\d{12}$/.test(segments.at(-2)!) ? segments.at(-2)! : env.account;
  return `arn:aws:sqs:${env.region}:${owner}:${name}`;
}

const events: Record<string, Describer> = {
  PutEvents: (body, env) => {
    const seen = new Map<string, ServiceAuthorization>();
    for (const entry of asArray(body.Entries).map(asObject)) {
      const bus = optionalString(entry, 'EventBusName') ?? 'default';
      const resource = bus.startsWith('arn:') ? bus : `arn:aws:events:${env.region}:${env.account}:event-bus/${bus}`;
      const source = optionalString(entry, 'Source');
      const detailType = optionalString(entry, 'DetailType');
      // One authorization per bus and per source/detail-type, so conditions on those keys see each entry's values.
      const key = JSON.stringify([resource, source, detailType]);
      if (!seen.has(key)) {
        seen.set(key, {
          action: 'events:PutEvents',
          resource,
          context: { 'events:source': source, 'events:detail-type': detailType },
        });
      }
    }
    return [...seen.values()];
  },
};

const secretsmanager: Record<string, Describer> = {
  GetSecretValue: secretAction('secretsmanager:GetSecretValue'),
  PutSecretValue: secretAction('secretsmanager:PutSecretValue'),
  DescribeSecret: secretAction('secretsmanager:DescribeSecret'),
  UpdateSecret: (body, env) => [
    {
      ...secretAction('secretsmanager:UpdateSecret')(body, env)[0]!,
      context: { ...secretContext(body), 'secretsmanager:KmsKeyId': optionalString(body, 'KmsKeyId') },
    },
  ],
  DeleteSecret: secretAction('secretsmanager:DeleteSecret'),
  CreateSecret: (body, env) => {
    const name = requiredString(body, 'Name');
    const arn =
      env.ctx.secretArn?.(name) ??
      env.ctx.newSecretArn?.(name) ??
      `arn:aws:secretsmanager:${env.region}:${env.account}:secret:${name}-${randomSuffix()}`;
    return [
      {
        action: 'secretsmanager:CreateSecret',
        resource: arn,
        context: {
          'secretsmanager:Name': name,
          'secretsmanager:KmsKeyId': optionalString(body, 'KmsKeyId'),
          ...tagContext(Object.fromEntries(asArray(body.Tags).map((tag) => [asObject(tag).Key, asObject(tag).Value]))),
        },
      },
    ];
  },
  // BatchGetSecretValue needs GetSecretValue on each secret too, and ListSecrets when it selects by filters
  // (Secrets Manager API Reference, BatchGetSecretValue).
  BatchGetSecretValue: (body, env) => [
    { action: 'secretsmanager:BatchGetSecretValue', resource: '*' },
    ...(body.Filters === undefined ? [] : [{ action: 'secretsmanager:ListSecrets', resource: '*' }]),
    ...asArray(body.SecretIdList).map((id) => ({
      action: 'secretsmanager:GetSecretValue',
      resource: secretResource(String(id), env),
      context: { 'secretsmanager:SecretId': String(id) },
    })),
  ],
  ListSecrets: () => [{ action: 'secretsmanager:ListSecrets', resource: '*' }],
};

function secretAction(action: string): Describer {
  return (body, env) => [
    { action, resource: secretResource(requiredString(body, 'SecretId'), env), context: secretContext(body) },
  ];
}

function secretContext(body: Body): Context {
  return {
    'secretsmanager:SecretId': optionalString(body, 'SecretId'),
    'secretsmanager:VersionId': optionalString(body, 'VersionId'),
    'secretsmanager:VersionStage': optionalString(body, 'VersionStage'),
  };
}

/**
 * The secret's full ARN when it exists. For an unknown secret AWS names the SecretId in its AccessDenied message;
 * as an ARN that is `secret:<name>` without the random suffix, so grants on `<name>-??????` do not match it.
 */
function secretResource(secretId: string, env: CallEnv): string {
  const known = env.ctx.secretArn?.(secretId);
  if (known) return known;
  if (secretId.startsWith('arn:')) return secretId;
  return `arn:aws:secretsmanager:${env.region}:${env.account}:secret:${secretId}`;
}

function randomSuffix(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(6)].map((byte) => alphabet[byte % alphabet.length]).join('');
}

const ssm: Record<string, Describer> = {
  GetParameter: parameterAction('ssm:GetParameter'),
  GetParameterHistory: parameterAction('ssm:GetParameterHistory'),
  DeleteParameter: parameterAction('ssm:DeleteParameter'),
  PutParameter: (body, env) => [
    {
      ...parameterAction('ssm:PutParameter')(body, env)[0]!,
      context: {
        'ssm:Overwrite': typeof body.Overwrite === 'boolean' ? body.Overwrite : undefined,
        ...tagContext(Object.fromEntries(asArray(body.Tags).map((tag) => [asObject(tag).Key, asObject(tag).Value]))),
      },
    },
  ],
  GetParameters: namesAction('ssm:GetParameters'),
  DeleteParameters: namesAction('ssm:DeleteParameters'),
  GetParametersByPath: (body, env) => [
    {
      action: 'ssm:GetParametersByPath',
      resource: parameterArn(requiredString(body, 'Path'), env),
      context: { 'ssm:Recursive': typeof body.Recursive === 'boolean' ? body.Recursive : undefined },
    },
  ],
  DescribeParameters: () => [{ action: 'ssm:DescribeParameters', resource: '*' }],
};

function parameterAction(action: string): Describer {
  return (body, env) => [{ action, resource: parameterArn(requiredString(body, 'Name'), env) }];
}

function namesAction(action: string): Describer {
  return (body, env) => {
    const names = asArray(body.Names).map(String);
    if (names.length === 0) throw new MalformedCallError(`${action} needs Names`);
    return [...new Set(names.map((name) => parameterArn(name, env)))].map((resource) => ({ action, resource }));
  };
}

/**
 * `arn:aws:ssm:<region>:<account>:parameter/<name>`, the leading `/` of a hierarchical name dropped (`/a/b` →
 * `parameter/a/b`, as CDK's `arnForParameterName` renders it), and a `:<version>` or `:<label>` selector removed.
 */
function parameterArn(name: string, env: CallEnv): string {
  if (name.startsWith('arn:')) {
    const [head, path = ''] = name.split(':parameter');
    return `${head}:parameter${path.split(':')[0]}`;
  }
  const bare = name.split(':')[0]!.replace(/^\//, '');
  return `arn:aws:ssm:${env.region}:${env.account}:parameter/${bare}`;
}

const kms: Record<string, Describer> = {
  Encrypt: keyAction('kms:Encrypt'),
  GenerateDataKey: keyAction('kms:GenerateDataKey'),
  GenerateDataKeyWithoutPlaintext: keyAction('kms:GenerateDataKeyWithoutPlaintext'),
  DescribeKey: keyAction('kms:DescribeKey'),
  Decrypt: (body, env) => {
    const keyId = optionalString(body, 'KeyId');
    return [
      {
        action: 'kms:Decrypt',
        resource: keyId ? keyArn(keyId, env) : ciphertextKeyArn(body.CiphertextBlob, env),
        context: { ...kmsContext(body, body.EncryptionContext, env), ...requestAlias(keyId) },
      },
    ];
  },
  // ReEncrypt is two authorizations: ReEncryptFrom on the source key and ReEncryptTo on the destination key.
  ReEncrypt: (body, env) => {
    const sourceKeyId = optionalString(body, 'SourceKeyId');
    const source = sourceKeyId ? keyArn(sourceKeyId, env) : ciphertextKeyArn(body.CiphertextBlob, env);
    const destinationKeyId = requiredString(body, 'DestinationKeyId');
    const destination = keyArn(destinationKeyId, env);
    const sameKey = { 'kms:ReEncryptOnSameKey': source === destination };
    return [
      {
        action: 'kms:ReEncryptFrom',
        resource: source,
        context: { ...kmsContext(body, body.SourceEncryptionContext, env), ...sameKey, ...requestAlias(sourceKeyId) },
      },
      {
        action: 'kms:ReEncryptTo',
        resource: destination,
        context: {
          ...kmsContext(body, body.DestinationEncryptionContext, env),
          ...sameKey,
          ...requestAlias(destinationKeyId),
        },
      },
    ];
  },
  GenerateRandom: () => [{ action: 'kms:GenerateRandom', resource: '*' }],
};

function keyAction(action: string): Describer {
  return (body, env) => {
    const keyId = requiredString(body, 'KeyId');
    return [
      {
        action,
        resource: keyArn(keyId, env),
        context: { ...kmsContext(body, body.EncryptionContext, env), ...requestAlias(keyId) },
      },
    ];
  };
}

/** The key ARN behind a key id, key ARN, alias name or alias ARN; an unknown alias stays an alias ARN. */
function keyArn(keyId: string, env: CallEnv): string {
  const known = env.ctx.kmsKeyArn?.(keyId);
  if (known) return known;
  if (keyId.startsWith('arn:')) return keyId;
  if (keyId.startsWith('alias/')) return `arn:aws:kms:${env.region}:${env.account}:${keyId}`;
  return `arn:aws:kms:${env.region}:${env.account}:key/${keyId}`;
}

function ciphertextKeyArn(ciphertext: unknown, env: CallEnv): string {
  if (typeof ciphertext !== 'string') throw new MalformedCallError('Decrypt needs CiphertextBlob');
  // An unknown ciphertext still gets a key ARN, one no key policy covers, so KMS denies it.
  return env.ctx.kmsKeyArnForCiphertext?.(ciphertext) ?? `arn:aws:kms:${env.region}:${env.account}:key/unknown`;
}

function kmsContext(body: Body, encryptionContext: unknown, env: CallEnv): Context {
  const pairs = Object.entries(asObject(encryptionContext));
  return {
    'kms:CallerAccount': env.account,
    'kms:EncryptionAlgorithm': optionalString(body, 'EncryptionAlgorithm'),
    'kms:EncryptionContextKeys': pairs.length > 0 ? pairs.map(([key]) => key) : undefined,
    ...Object.fromEntries(pairs.map(([key, value]) => [`kms:EncryptionContext:${key}`, String(value)])),
  };
}

function requestAlias(keyId: string | undefined): Context {
  const alias = keyId && /(?:^|:)(alias\/.+)$/.exec(keyId)?.[1];
  return alias ? { 'kms:RequestAlias': alias } : {};
}

function tagContext(tags: unknown): Context {
  const entries = Object.entries(asObject(tags));
  if (entries.length === 0) return {};
  return {
    'aws:TagKeys': entries.map(([key]) => key),
    ...Object.fromEntries(entries.map(([key, value]) => [`aws:RequestTag/${key}`, String(value)])),
  };
}

const DESCRIBERS: Readonly<Record<string, Record<string, Describer>>> = {
  dynamodb,
  sqs,
  events,
  secretsmanager,
  ssm,
  kms,
};

function requiredString(body: Body, name: string): string {
  const value = body[name];
  if (typeof value !== 'string' || value === '') throw new MalformedCallError(`missing ${name}`);
  return value;
}

function optionalString(body: Body, name: string): string | undefined {
  const value = body[name];
  return typeof value === 'string' ? value : undefined;
}

function asObject(value: unknown): Body {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Body) : {};
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
