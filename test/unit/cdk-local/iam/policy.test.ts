import { describe, expect, it } from 'vitest';
import {
  type AccessRequest,
  authorize,
  type ConditionBlock,
  type Decision,
  evaluate,
  evaluateWithMatches,
  grantedActions,
  matchesGrant,
  type PolicyDocument,
  type PolicyStatement,
  type RequestContext,
} from '#infra/cdk-local/iam/policy';

const ACCOUNT = '000000000000';
const REGION = 'eu-west-1';
const ROLE = `arn:aws:iam::${ACCOUNT}:role/S-FnServiceRole1A2B3C`;
const SESSION = `arn:aws:sts::${ACCOUNT}:assumed-role/S-FnServiceRole1A2B3C/wp-crm-dev-create-group`;
const ROOT = `arn:aws:iam::${ACCOUNT}:root`;
const TABLE = `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/wp-crm-dev-groups`;
const SECRET = `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:SecB1C2D3-Xy12Zq`;
const CHANNEL_SECRETS = `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:wp-crm/dev/channels/*`;
const PARAMETER = `arn:aws:ssm:${REGION}:${ACCOUNT}:parameter/wp/jwks`;
const QUEUE = `arn:aws:sqs:${REGION}:${ACCOUNT}:S-Q63C6E3AB-Ab1Cd2Ef3Gh4`;
const BUS = `arn:aws:events:${REGION}:${ACCOUNT}:event-bus/SB08E7C7AF`;
const RULE = `arn:aws:events:${REGION}:${ACCOUNT}:rule/SB08E7C7AF/S-RuD1BE93F1-1A2B3C`;
const BUCKET = 'arn:aws:s3:::s-bk60f57841-1a2b3c4d';
const KEY = `arn:aws:kms:${REGION}:${ACCOUNT}:key/1234abcd-12ab-34cd-56ef-1234567890ab`;

const doc = (...statements: PolicyStatement[]): PolicyDocument => ({ Version: '2012-10-17', Statement: statements });
const request = (action: string, resource: string, context: RequestContext = {}): AccessRequest => ({
  action,
  resource,
  context,
});

// The statements aws-cdk-lib 2.276 synthesizes for the project's grants, intrinsics resolved.
const functionPolicy = doc(
  {
    Action: ['secretsmanager:GetSecretValue', 'secretsmanager:DescribeSecret'],
    Effect: 'Allow',
    Resource: SECRET,
  },
  {
    Action: ['ssm:DescribeParameters', 'ssm:GetParameters', 'ssm:GetParameter', 'ssm:GetParameterHistory'],
    Effect: 'Allow',
    Resource: PARAMETER,
  },
  { Action: ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'], Effect: 'Allow', Resource: QUEUE },
  { Action: 'events:PutEvents', Effect: 'Allow', Resource: BUS },
  {
    Action: [
      'dynamodb:GetItem',
      'dynamodb:BatchGetItem',
      'dynamodb:Query',
      'dynamodb:ConditionCheckItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:DeleteItem',
      'dynamodb:BatchWriteItem',
    ],
    Effect: 'Allow',
    Resource: [TABLE, `${TABLE}/index/GSI1`],
  },
  { Action: ['s3:GetObject', 's3:PutObject', 's3:AbortMultipartUpload'], Effect: 'Allow', Resource: `${BUCKET}/*` },
  { Action: 'secretsmanager:GetSecretValue', Effect: 'Allow', Resource: CHANNEL_SECRETS },
  { Action: 'kms:Decrypt', Effect: 'Allow', Resource: KEY },
);
const consumerPolicy = doc({
  Action: [
    'sqs:ReceiveMessage',
    'sqs:ChangeMessageVisibility',
    'sqs:GetQueueUrl',
    'sqs:DeleteMessage',
    'sqs:GetQueueAttributes',
  ],
  Effect: 'Allow',
  Resource: QUEUE,
});
const enforceSsl = (resources: string[], action: string): PolicyStatement => ({
  Action: action,
  Condition: { Bool: { 'aws:SecureTransport': 'false' } },
  Effect: 'Deny',
  Principal: { AWS: '*' },
  Resource: resources,
});
const bucketPolicy = doc(enforceSsl([BUCKET, `${BUCKET}/*`], 's3:*'));
const queuePolicy = doc(enforceSsl([QUEUE], 'sqs:*'), {
  Action: ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'],
  Condition: { ArnEquals: { 'aws:SourceArn': RULE } },
  Effect: 'Allow',
  Principal: { Service: 'events.amazonaws.com' },
  Resource: QUEUE,
});
const keyPolicy = doc({ Action: 'kms:*', Effect: 'Allow', Principal: { AWS: ROOT }, Resource: '*' });
const secure = { 'aws:SecureTransport': true };

describe('evaluate', () => {
  it.each<[string, PolicyDocument[], AccessRequest, Decision]>([
    ['secret.grantRead: GetSecretValue', [functionPolicy], request('secretsmanager:GetSecretValue', SECRET), 'allow'],
    ['secret.grantRead: DescribeSecret', [functionPolicy], request('secretsmanager:DescribeSecret', SECRET), 'allow'],
    [
      'secret.grantRead: no PutSecretValue',
      [functionPolicy],
      request('secretsmanager:PutSecretValue', SECRET),
      'implicit-deny',
    ],
    [
      'secret.grantRead: not another secret',
      [functionPolicy],
      request('secretsmanager:GetSecretValue', SECRET.replace('Xy12Zq', 'Zz99Zz')),
      'implicit-deny',
    ],
    [
      'a trailing * runs over / in the channel token prefix grant',
      [functionPolicy],
      request('secretsmanager:GetSecretValue', CHANNEL_SECRETS.replace('*', 'ch_01J/token-AbCdEf')),
      'allow',
    ],
    ['parameter.grantRead: GetParameter', [functionPolicy], request('ssm:GetParameter', PARAMETER), 'allow'],
    ['parameter.grantRead: GetParameters', [functionPolicy], request('ssm:GetParameters', PARAMETER), 'allow'],
    [
      'parameter.grantRead: GetParameterHistory',
      [functionPolicy],
      request('ssm:GetParameterHistory', PARAMETER),
      'allow',
    ],
    [
      'parameter.grantRead: DescribeParameters is on *, so the parameter-scoped grant does not cover it',
      [functionPolicy],
      request('ssm:DescribeParameters', '*'),
      'implicit-deny',
    ],
    ['queue.grantSendMessages: SendMessage', [functionPolicy], request('sqs:SendMessage', QUEUE), 'allow'],
    ['queue.grantSendMessages: GetQueueUrl', [functionPolicy], request('sqs:GetQueueUrl', QUEUE), 'allow'],
    [
      'queue.grantSendMessages: no ReceiveMessage',
      [functionPolicy],
      request('sqs:ReceiveMessage', QUEUE),
      'implicit-deny',
    ],
    ['SqsEventSource: ReceiveMessage', [consumerPolicy], request('sqs:ReceiveMessage', QUEUE), 'allow'],
    [
      'SqsEventSource: ChangeMessageVisibility',
      [consumerPolicy],
      request('sqs:ChangeMessageVisibility', QUEUE),
      'allow',
    ],
    ['SqsEventSource: DeleteMessage', [consumerPolicy], request('sqs:DeleteMessage', QUEUE), 'allow'],
    ['SqsEventSource: no SendMessage', [consumerPolicy], request('sqs:SendMessage', QUEUE), 'implicit-deny'],
    ['SqsEventSource: no PurgeQueue', [consumerPolicy], request('sqs:PurgeQueue', QUEUE), 'implicit-deny'],
    ['bus.grantPutEventsTo: the bus', [functionPolicy], request('events:PutEvents', BUS), 'allow'],
    [
      'bus.grantPutEventsTo: not the default bus',
      [functionPolicy],
      request('events:PutEvents', `arn:aws:events:${REGION}:${ACCOUNT}:event-bus/default`),
      'implicit-deny',
    ],
    ['dynamodb: GetItem on the table', [functionPolicy], request('dynamodb:GetItem', TABLE), 'allow'],
    ['dynamodb: Query on GSI1', [functionPolicy], request('dynamodb:Query', `${TABLE}/index/GSI1`), 'allow'],
    [
      'dynamodb: not Query on GSI2',
      [functionPolicy],
      request('dynamodb:Query', `${TABLE}/index/GSI2`),
      'implicit-deny',
    ],
    ['dynamodb: no Scan', [functionPolicy], request('dynamodb:Scan', TABLE), 'implicit-deny'],
    ['s3: PutObject under any key', [functionPolicy], request('s3:PutObject', `${BUCKET}/reports/2025/r.csv`), 'allow'],
    ['s3: no ListBucket on the bucket', [functionPolicy], request('s3:ListBucket', BUCKET), 'implicit-deny'],
    ['actions match case-insensitively', [functionPolicy], request('DynamoDB:getitem', TABLE), 'allow'],
    [
      'resources match case-sensitively',
      [functionPolicy],
      request('dynamodb:GetItem', TABLE.toUpperCase()),
      'implicit-deny',
    ],
    ['Action *', [doc({ Effect: 'Allow', Action: '*', Resource: '*' })], request('kms:Decrypt', KEY), 'allow'],
    [
      'Action with * and ?',
      [doc({ Effect: 'Allow', Action: ['dynamodb:Get*', 'sqs:?eceiveMessage'], Resource: '*' })],
      request('sqs:ReceiveMessage', QUEUE),
      'allow',
    ],
    [
      'Action ? matches exactly one character',
      [doc({ Effect: 'Allow', Action: 'sqs:?Message', Resource: '*' })],
      request('sqs:SendMessage', QUEUE),
      'implicit-deny',
    ],
    [
      'Resource ? matches one character',
      [doc({ Effect: 'Allow', Action: 'secretsmanager:*', Resource: SECRET.replace('Xy12Zq', '??????') })],
      request('secretsmanager:GetSecretValue', SECRET),
      'allow',
    ],
    [
      'Resource * in a segment matches within it',
      [doc({ Effect: 'Allow', Action: 'dynamodb:*', Resource: `arn:aws:dynamodb:*:${ACCOUNT}:table/*` })],
      request('dynamodb:GetItem', TABLE),
      'allow',
    ],
    [
      'Resource * ending a segment runs past colons',
      [doc({ Effect: 'Allow', Action: 'lambda:*', Resource: `arn:aws:lambda:${REGION}:${ACCOUNT}:function:fn*` })],
      request('lambda:InvokeFunction', `arn:aws:lambda:${REGION}:${ACCOUNT}:function:fn:live`),
      'allow',
    ],
    [
      'Resource * inside a segment does not run past a colon',
      [doc({ Effect: 'Allow', Action: 'lambda:*', Resource: `arn:aws:lambda:${REGION}:${ACCOUNT}:function:*live` })],
      request('lambda:InvokeFunction', `arn:aws:lambda:${REGION}:${ACCOUNT}:function:fn:live`),
      'implicit-deny',
    ],
    [
      'NotAction allows every other action',
      [doc({ Effect: 'Allow', NotAction: ['iam:*', 'sts:*'], Resource: '*' })],
      request('sqs:SendMessage', QUEUE),
      'allow',
    ],
    [
      'NotAction does not allow its own actions',
      [doc({ Effect: 'Allow', NotAction: ['iam:*', 'sts:*'], Resource: '*' })],
      request('iam:CreateUser', ROOT),
      'implicit-deny',
    ],
    [
      'Deny with NotResource denies other resources',
      [
        doc(
          { Effect: 'Allow', Action: 'dynamodb:*', Resource: '*' },
          { Effect: 'Deny', Action: 'dynamodb:*', NotResource: TABLE },
        ),
      ],
      request('dynamodb:GetItem', TABLE.replace('groups', 'reports')),
      'explicit-deny',
    ],
    [
      'Deny with NotResource spares its resources',
      [
        doc(
          { Effect: 'Allow', Action: 'dynamodb:*', Resource: '*' },
          { Effect: 'Deny', Action: 'dynamodb:*', NotResource: TABLE },
        ),
      ],
      request('dynamodb:GetItem', TABLE),
      'allow',
    ],
    [
      'an explicit Deny in another document wins over an Allow',
      [functionPolicy, doc({ Effect: 'Deny', Action: 'sqs:*', Resource: '*' })],
      request('sqs:SendMessage', QUEUE),
      'explicit-deny',
    ],
    [
      'a single Statement object',
      [{ Version: '2012-10-17', Statement: { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: QUEUE } }],
      request('sqs:SendMessage', QUEUE),
      'allow',
    ],
    ['no documents', [], request('sqs:SendMessage', QUEUE), 'implicit-deny'],
    [
      'policy variables are expanded under 2012-10-17',
      [doc({ Effect: 'Allow', Action: 's3:GetObject', Resource: `${BUCKET}/\${aws:PrincipalTag/team}/*` })],
      request('s3:GetObject', `${BUCKET}/sales/r.csv`, { 'aws:PrincipalTag/team': 'sales' }),
      'allow',
    ],
    [
      'a policy variable without a value matches nothing',
      [doc({ Effect: 'Allow', Action: 's3:GetObject', Resource: `${BUCKET}/\${aws:PrincipalTag/team}/*` })],
      request('s3:GetObject', `${BUCKET}/sales/r.csv`),
      'implicit-deny',
    ],
    [
      'a policy variable default applies when the key is absent',
      [doc({ Effect: 'Allow', Action: 's3:GetObject', Resource: `${BUCKET}/\${aws:PrincipalTag/team, 'shared'}/*` })],
      request('s3:GetObject', `${BUCKET}/shared/r.csv`),
      'allow',
    ],
    [
      'policy variables are literal text in a 2008-10-17 policy',
      [
        {
          Version: '2008-10-17',
          Statement: [{ Effect: 'Allow', Action: 's3:GetObject', Resource: `${BUCKET}/\${aws:username}/*` }],
        },
      ],
      request('s3:GetObject', `${BUCKET}/\${aws:username}/r.csv`, { 'aws:username': 'bob' }),
      'allow',
    ],
  ])('%s', (_name, documents, accessRequest, expected) => {
    expect(evaluate(documents, accessRequest)).toBe(expected);
  });
});

describe('evaluate with conditions', () => {
  const withCondition = (Condition: ConditionBlock, context: RequestContext) =>
    evaluate(
      [doc({ Effect: 'Allow', Action: 'sqs:SendMessage', Resource: QUEUE, Condition })],
      request('sqs:SendMessage', QUEUE, context),
    );

  it.each<[string, ConditionBlock, RequestContext, boolean]>([
    ['StringEquals', { StringEquals: { 'aws:PrincipalAccount': ACCOUNT } }, { 'aws:PrincipalAccount': ACCOUNT }, true],
    [
      'StringEquals is case-sensitive',
      { StringEquals: { 'events:source': 'wp-crm' } },
      { 'events:source': 'WP-CRM' },
      false,
    ],
    [
      'StringEquals: values of a key are OR',
      { StringEquals: { 'events:source': ['a', 'wp-crm'] } },
      { 'events:source': 'wp-crm' },
      true,
    ],
    [
      'StringNotEquals: values are NOR (one listed)',
      { StringNotEquals: { 'events:source': ['a', 'b'] } },
      { 'events:source': 'b' },
      false,
    ],
    [
      'StringNotEquals: values are NOR (none listed)',
      { StringNotEquals: { 'events:source': ['a', 'b'] } },
      { 'events:source': 'c' },
      true,
    ],
    [
      'StringEqualsIgnoreCase',
      { StringEqualsIgnoreCase: { 'events:source': 'wp-crm' } },
      { 'events:source': 'WP-CRM' },
      true,
    ],
    [
      'StringNotEqualsIgnoreCase',
      { StringNotEqualsIgnoreCase: { 'events:source': 'wp-crm' } },
      { 'events:source': 'WP-CRM' },
      false,
    ],
    ['StringLike with *', { StringLike: { 's3:prefix': 'reports/*' } }, { 's3:prefix': 'reports/2025/' }, true],
    ['StringLike with ?', { StringLike: { 's3:prefix': 'r?' } }, { 's3:prefix': 'rx' }, true],
    ['StringLike no match', { StringLike: { 's3:prefix': 'reports/*' } }, { 's3:prefix': 'exports/' }, false],
    ['StringNotLike', { StringNotLike: { 's3:prefix': ['reports/*', 'exports/*'] } }, { 's3:prefix': 'tmp/' }, true],
    [
      `StringEquals: the variable \${*} is a literal *`,
      { StringEquals: { 's3:prefix': `a\${*}` } },
      { 's3:prefix': 'a*' },
      true,
    ],
    [
      'StringEquals with a policy variable',
      { StringEquals: { 'events:source': `\${aws:username}` } },
      { 'events:source': 'bob', 'aws:username': 'bob' },
      true,
    ],
    ['NumericEquals', { NumericEquals: { 's3:max-keys': '10' } }, { 's3:max-keys': 10 }, true],
    ['NumericNotEquals', { NumericNotEquals: { 's3:max-keys': ['10', '20'] } }, { 's3:max-keys': 20 }, false],
    ['NumericLessThan', { NumericLessThan: { 's3:max-keys': 10 } }, { 's3:max-keys': 9 }, true],
    ['NumericLessThanEquals', { NumericLessThanEquals: { 's3:max-keys': 10 } }, { 's3:max-keys': 10 }, true],
    ['NumericGreaterThan', { NumericGreaterThan: { 's3:max-keys': 10 } }, { 's3:max-keys': 10 }, false],
    ['NumericGreaterThanEquals', { NumericGreaterThanEquals: { 's3:max-keys': 10 } }, { 's3:max-keys': 11 }, true],
    ['Numeric with a non-number', { NumericEquals: { 's3:max-keys': 10 } }, { 's3:max-keys': 'ten' }, false],
    [
      'DateEquals across formats',
      { DateEquals: { 'aws:CurrentTime': '2025-01-01T00:00:00Z' } },
      { 'aws:CurrentTime': '1735689600' },
      true,
    ],
    [
      'DateNotEquals',
      { DateNotEquals: { 'aws:CurrentTime': '2025-01-01T00:00:00Z' } },
      { 'aws:CurrentTime': '2025-01-02T00:00:00Z' },
      true,
    ],
    [
      'DateLessThan',
      { DateLessThan: { 'aws:CurrentTime': '2025-06-30T00:00:00Z' } },
      { 'aws:CurrentTime': '2025-06-01T12:00:00Z' },
      true,
    ],
    [
      'DateLessThanEquals',
      { DateLessThanEquals: { 'aws:EpochTime': '1735689600' } },
      { 'aws:EpochTime': 1735689600 },
      true,
    ],
    [
      'DateGreaterThan',
      { DateGreaterThan: { 'aws:CurrentTime': '2025-06-30T00:00:00Z' } },
      { 'aws:CurrentTime': '2025-06-01T12:00:00Z' },
      false,
    ],
    [
      'DateGreaterThanEquals',
      { DateGreaterThanEquals: { 'aws:EpochTime': '2025-01-01T00:00:00Z' } },
      { 'aws:EpochTime': 1735689601 },
      true,
    ],
    ['Bool true', { Bool: { 'aws:SecureTransport': 'true' } }, secure, true],
    ['Bool false', { Bool: { 'aws:SecureTransport': 'false' } }, secure, false],
    [
      'BinaryEquals',
      { BinaryEquals: { 'kms:RecipientAttestation:ImageSha384': 'AQID' } },
      { 'kms:RecipientAttestation:ImageSha384': 'AQID' },
      true,
    ],
    [
      'BinaryEquals differs',
      { BinaryEquals: { 'kms:RecipientAttestation:ImageSha384': 'AQID' } },
      { 'kms:RecipientAttestation:ImageSha384': 'AQIE' },
      false,
    ],
    ['IpAddress IPv4 CIDR', { IpAddress: { 'aws:SourceIp': '10.0.0.0/8' } }, { 'aws:SourceIp': '10.1.2.3' }, true],
    [
      'IpAddress single address',
      { IpAddress: { 'aws:SourceIp': '127.0.0.1' } },
      { 'aws:SourceIp': '127.0.0.2' },
      false,
    ],
    [
      'IpAddress IPv6 CIDR',
      { IpAddress: { 'aws:SourceIp': '2001:db8::/32' } },
      { 'aws:SourceIp': '2001:db8:1::5' },
      true,
    ],
    [
      'IpAddress IPv4 against IPv6',
      { IpAddress: { 'aws:SourceIp': '2001:db8::/32' } },
      { 'aws:SourceIp': '10.0.0.1' },
      false,
    ],
    [
      'NotIpAddress',
      { NotIpAddress: { 'aws:SourceIp': ['10.0.0.0/8', '192.168.0.0/16'] } },
      { 'aws:SourceIp': '192.168.1.1' },
      false,
    ],
    ['ArnEquals', { ArnEquals: { 'aws:SourceArn': RULE } }, { 'aws:SourceArn': RULE }, true],
    [
      'ArnLike with a wildcard segment',
      { ArnLike: { 'aws:SourceArn': `arn:aws:events:*:${ACCOUNT}:rule/*` } },
      { 'aws:SourceArn': RULE },
      true,
    ],
    [
      'ArnLike on a value that is no ARN',
      { ArnLike: { 'aws:SourceArn': 'arn:aws:events:*:*:*' } },
      { 'aws:SourceArn': 'rule' },
      false,
    ],
    ['ArnNotEquals', { ArnNotEquals: { 'aws:SourceArn': RULE } }, { 'aws:SourceArn': `${RULE}x` }, true],
    ['ArnNotLike', { ArnNotLike: { 'aws:SourceArn': 'arn:aws:events:*:*:rule/*' } }, { 'aws:SourceArn': RULE }, false],
    ['Null true: the key is absent', { Null: { 'aws:TokenIssueTime': 'true' } }, {}, true],
    ['Null false: the key is present', { Null: { 'aws:TokenIssueTime': 'false' } }, {}, false],
    ['a missing key fails a positive operator', { StringEquals: { 'events:source': 'wp-crm' } }, {}, false],
    ['a missing key satisfies a negated operator (AWS)', { StringNotEquals: { 'events:source': 'wp-crm' } }, {}, true],
    ['IfExists holds when the key is missing', { StringEqualsIfExists: { 'events:source': 'wp-crm' } }, {}, true],
    [
      'IfExists still compares a present key',
      { StringEqualsIfExists: { 'events:source': 'wp-crm' } },
      { 'events:source': 'x' },
      false,
    ],
    ['BoolIfExists', { BoolIfExists: { 'aws:SecureTransport': 'false' } }, secure, false],
    [
      'ForAllValues: every value listed',
      { 'ForAllValues:StringEquals': { 'aws:TagKeys': ['team', 'env'] } },
      { 'aws:TagKeys': ['env'] },
      true,
    ],
    [
      'ForAllValues: a value not listed',
      { 'ForAllValues:StringEquals': { 'aws:TagKeys': ['team', 'env'] } },
      { 'aws:TagKeys': ['env', 'cost'] },
      false,
    ],
    ['ForAllValues: a missing key holds', { 'ForAllValues:StringEquals': { 'aws:TagKeys': ['team'] } }, {}, true],
    [
      'ForAllValues: an empty set holds',
      { 'ForAllValues:StringEquals': { 'aws:TagKeys': ['team'] } },
      { 'aws:TagKeys': [] },
      true,
    ],
    [
      'ForAllValues:StringNotLike',
      { 'ForAllValues:StringNotLike': { 'aws:TagKeys': 'aws:*' } },
      { 'aws:TagKeys': ['team', 'aws:x'] },
      false,
    ],
    [
      'ForAnyValue: one value listed',
      { 'ForAnyValue:StringEquals': { 'dynamodb:Attributes': ['PK'] } },
      { 'dynamodb:Attributes': ['SK', 'PK'] },
      true,
    ],
    [
      'ForAnyValue: none listed',
      { 'ForAnyValue:StringEquals': { 'dynamodb:Attributes': ['PK'] } },
      { 'dynamodb:Attributes': ['SK'] },
      false,
    ],
    ['ForAnyValue: a missing key fails', { 'ForAnyValue:StringEquals': { 'dynamodb:Attributes': ['PK'] } }, {}, false],
    [
      'ForAnyValue:StringLikeIfExists on a missing key',
      { 'ForAnyValue:StringLikeIfExists': { 'dynamodb:Attributes': 'P*' } },
      {},
      true,
    ],
    [
      'several keys of one operator are AND',
      { StringEquals: { 'events:source': 'wp-crm', 'events:detail-type': 'group.created' } },
      { 'events:source': 'wp-crm', 'events:detail-type': 'group.failed' },
      false,
    ],
    [
      'several operators are AND',
      { StringEquals: { 'events:source': 'wp-crm' }, Bool: { 'aws:SecureTransport': 'true' } },
      { 'events:source': 'wp-crm', ...secure },
      true,
    ],
    [
      'condition key names are case-insensitive',
      { StringEquals: { 'AWS:PrincipalAccount': ACCOUNT } },
      { 'aws:principalaccount': ACCOUNT },
      true,
    ],
    [
      'a multivalued context key without a set operator matches any value',
      { StringEquals: { 'dynamodb:LeadingKeys': 'ORG#1' } },
      { 'dynamodb:LeadingKeys': ['ORG#2', 'ORG#1'] },
      true,
    ],
    [
      'an unknown operator makes an Allow not apply',
      { StringSoundsLike: { 'events:source': 'wp-crm' } },
      { 'events:source': 'wp-crm' },
      false,
    ],
  ])('%s', (_name, condition, context, holds) => {
    expect(withCondition(condition, context)).toBe(holds ? 'allow' : 'implicit-deny');
  });

  it('applies a Deny statement whose condition operator it does not know (fails closed)', () => {
    const documents = [
      doc(
        { Effect: 'Allow', Action: 'sqs:*', Resource: '*' },
        { Effect: 'Deny', Action: 'sqs:*', Resource: '*', Condition: { StringSoundsLike: { 'events:source': 'x' } } },
      ),
    ];

    const decision = evaluate(documents, request('sqs:SendMessage', QUEUE));

    expect(decision).toBe('explicit-deny');
  });
});

describe('evaluateWithMatches', () => {
  it('names the applying statements and the grant pairs that matched', () => {
    const documents = [
      functionPolicy,
      doc({ Sid: 'Wide', Effect: 'Allow', Action: 'dynamodb:*', Resource: `${TABLE}*` }),
    ];

    const evaluation = evaluateWithMatches(documents, request('dynamodb:Query', `${TABLE}/index/GSI1`));

    expect(evaluation.decision).toBe('allow');
    expect(evaluation.allowedBy).toEqual([
      { document: 0, statement: 4, effect: 'Allow' },
      { document: 1, statement: 0, sid: 'Wide', effect: 'Allow' },
    ]);
    expect(evaluation.matchedGrants).toEqual([`dynamodb:Query ${TABLE}/index/GSI1`, `dynamodb:* ${TABLE}*`]);
  });

  it('leaves out Allow statements whose condition does not hold', () => {
    const documents = [
      doc({
        Effect: 'Allow',
        Action: 'events:PutEvents',
        Resource: BUS,
        Condition: { StringEquals: { 'events:source': 'other' } },
      }),
    ];

    const evaluation = evaluateWithMatches(documents, request('events:PutEvents', BUS, { 'events:source': 'wp-crm' }));

    expect(evaluation).toEqual({ decision: 'implicit-deny', allowedBy: [], deniedBy: [], matchedGrants: [] });
  });

  it('reports the Deny that won and still the grants that matched', () => {
    const documents = [functionPolicy, doc({ Sid: 'NoQueues', Effect: 'Deny', Action: 'sqs:*', Resource: '*' })];

    const evaluation = evaluateWithMatches(documents, request('sqs:SendMessage', QUEUE));

    expect(evaluation.decision).toBe('explicit-deny');
    expect(evaluation.deniedBy).toEqual([{ document: 1, statement: 0, sid: 'NoQueues', effect: 'Deny' }]);
    expect(evaluation.matchedGrants).toEqual([`sqs:SendMessage ${QUEUE}`]);
  });
});

describe('grantedActions', () => {
  it('lists every action and resource pair of the Allow statements, as written and without duplicates', () => {
    const documents = [
      consumerPolicy,
      doc(
        { Effect: 'Allow', Action: ['sqs:GetQueueUrl'], Resource: [QUEUE, `${QUEUE}-dlq`] },
        { Effect: 'Deny', Action: 'sqs:PurgeQueue', Resource: QUEUE },
        { Effect: 'Allow', NotAction: ['iam:*', 'sts:*'], NotResource: BUCKET },
      ),
    ];

    const pairs = grantedActions(documents);

    expect(pairs).toEqual([
      `sqs:ReceiveMessage ${QUEUE}`,
      `sqs:ChangeMessageVisibility ${QUEUE}`,
      `sqs:GetQueueUrl ${QUEUE}`,
      `sqs:DeleteMessage ${QUEUE}`,
      `sqs:GetQueueAttributes ${QUEUE}`,
      `sqs:GetQueueUrl ${QUEUE}-dlq`,
      `NOT(iam:*|sts:*) NOT(${BUCKET})`,
    ]);
  });

  it('pairs each action with each resource of the CDK table grant', () => {
    const pairs = grantedActions([functionPolicy]);

    expect(pairs).toContain(`dynamodb:Query ${TABLE}/index/GSI1`);
    expect(pairs).toContain(`ssm:DescribeParameters ${PARAMETER}`);
    expect(pairs).toHaveLength(2 + 4 + 3 + 1 + 8 * 2 + 3 + 1 + 1);
  });
});

describe('matchesGrant', () => {
  it.each<[string, string, boolean]>([
    [`dynamodb:Query ${TABLE}/index/*`, 'dynamodb:query', true],
    [`dynamodb:Query ${TABLE}`, 'dynamodb:Query', false],
    [`NOT(iam:*) ${TABLE}/index/GSI1`, 'dynamodb:Query', true],
    [`NOT(dynamodb:*) *`, 'dynamodb:Query', false],
  ])('%s covering %s on the index: %s', (pair, action, expected) => {
    expect(matchesGrant(pair, { action, resource: `${TABLE}/index/GSI1` })).toBe(expected);
  });
});

describe('authorize', () => {
  const base = { principalArn: SESSION, service: 'sqs' };

  it('allows what the identity policy allows, with the grants used', () => {
    const result = authorize({
      ...base,
      identityPolicies: [functionPolicy],
      request: request('sqs:SendMessage', QUEUE, secure),
    });

    expect(result).toEqual({
      decision: 'allow',
      reason: 'allowed',
      allowedBy: 'identity',
      matchedGrants: [`sqs:SendMessage ${QUEUE}`],
    });
  });

  it('denies with no-allow when neither policy allows', () => {
    const result = authorize({
      ...base,
      identityPolicies: [functionPolicy],
      resourcePolicy: queuePolicy,
      request: request('sqs:ReceiveMessage', QUEUE, secure),
    });

    expect(result).toEqual({ decision: 'deny', reason: 'no-allow', deniedBy: 'identity', matchedGrants: [] });
  });

  it.each([
    ['the role ARN', ROLE],
    ['the role session ARN', SESSION],
    ['*', '*'],
  ])('allows by a same-account resource policy naming %s, without an identity Allow', (_name, principal) => {
    const resourcePolicy = doc({
      Effect: 'Allow',
      Principal: { AWS: principal },
      Action: 'sqs:SendMessage',
      Resource: QUEUE,
    });

    const result = authorize({
      ...base,
      identityPolicies: [],
      resourcePolicy,
      request: request('sqs:SendMessage', QUEUE),
    });

    expect(result).toMatchObject({ decision: 'allow', allowedBy: 'resource', matchedGrants: [] });
  });

  it.each([
    ['the root ARN', ROOT],
    ['the bare account id', ACCOUNT],
  ])('needs the identity policy when the resource policy names only the account by %s', (_name, principal) => {
    const resourcePolicy = doc({ Effect: 'Allow', Principal: { AWS: principal }, Action: 'sqs:*', Resource: QUEUE });

    const alone = authorize({
      ...base,
      identityPolicies: [],
      resourcePolicy,
      request: request('sqs:SendMessage', QUEUE),
    });
    const withIdentity = authorize({
      ...base,
      identityPolicies: [functionPolicy],
      resourcePolicy,
      request: request('sqs:SendMessage', QUEUE),
    });

    expect(alone).toMatchObject({ decision: 'deny', reason: 'no-allow' });
    expect(withIdentity).toMatchObject({ decision: 'allow', allowedBy: 'identity' });
  });

  it('does not let a statement naming another role allow', () => {
    const resourcePolicy = doc({
      Effect: 'Allow',
      Principal: { AWS: `arn:aws:iam::${ACCOUNT}:role/Other` },
      Action: 'sqs:*',
      Resource: QUEUE,
    });

    const result = authorize({
      ...base,
      identityPolicies: [],
      resourcePolicy,
      request: request('sqs:SendMessage', QUEUE),
    });

    expect(result.decision).toBe('deny');
  });

  it('denies explicitly in the identity policy before the resource policy is consulted', () => {
    const resourcePolicy = doc({ Effect: 'Allow', Principal: { AWS: ROLE }, Action: 'sqs:*', Resource: QUEUE });
    const identityPolicies = [doc({ Effect: 'Deny', Action: 'sqs:*', Resource: '*' })];

    const result = authorize({ ...base, identityPolicies, resourcePolicy, request: request('sqs:SendMessage', QUEUE) });

    expect(result).toMatchObject({ decision: 'deny', reason: 'explicit-deny', deniedBy: 'identity' });
  });

  it('lets the enforceSSL bucket policy pass requests over HTTPS', () => {
    const result = authorize({
      ...base,
      service: 's3',
      identityPolicies: [functionPolicy],
      resourcePolicy: bucketPolicy,
      request: request('s3:GetObject', `${BUCKET}/r.csv`, secure),
    });

    expect(result).toMatchObject({ decision: 'allow', allowedBy: 'identity' });
  });

  it('denies by the enforceSSL bucket policy when aws:SecureTransport is false', () => {
    const result = authorize({
      ...base,
      service: 's3',
      identityPolicies: [functionPolicy],
      resourcePolicy: bucketPolicy,
      request: request('s3:GetObject', `${BUCKET}/r.csv`, { 'aws:SecureTransport': false }),
    });

    expect(result).toEqual({
      decision: 'deny',
      reason: 'explicit-deny',
      deniedBy: 'resource',
      matchedGrants: [`s3:GetObject ${BUCKET}/*`],
    });
  });

  it('allows EventBridge to deliver to the queue for the rule named in aws:SourceArn', () => {
    const result = authorize({
      principalArn: 'events.amazonaws.com',
      service: 'sqs',
      identityPolicies: [],
      resourcePolicy: queuePolicy,
      request: request('sqs:SendMessage', QUEUE, { ...secure, 'aws:SourceArn': RULE }),
    });

    expect(result).toMatchObject({ decision: 'allow', allowedBy: 'resource' });
  });

  it('denies EventBridge delivery for another rule', () => {
    const result = authorize({
      principalArn: 'events.amazonaws.com',
      service: 'sqs',
      identityPolicies: [],
      resourcePolicy: queuePolicy,
      request: request('sqs:SendMessage', QUEUE, { ...secure, 'aws:SourceArn': `${RULE}-other` }),
    });

    expect(result).toMatchObject({ decision: 'deny', reason: 'no-allow' });
  });

  it('does not let the events.amazonaws.com statement allow a function role', () => {
    const result = authorize({
      ...base,
      identityPolicies: [consumerPolicy],
      resourcePolicy: queuePolicy,
      request: request('sqs:SendMessage', QUEUE, { ...secure, 'aws:SourceArn': RULE }),
    });

    expect(result).toMatchObject({ decision: 'deny', reason: 'no-allow' });
  });

  it.each([
    ['session, role and account', [SESSION, ROLE, ROOT], 'allow'],
    ['only the role', [ROLE], 'deny'],
  ])('excludes a caller from a NotPrincipal Deny listing %s: %s', (_name, listed, expected) => {
    const resourcePolicy = doc({ Effect: 'Deny', NotPrincipal: { AWS: listed }, Action: 'sqs:*', Resource: QUEUE });

    const result = authorize({
      ...base,
      identityPolicies: [functionPolicy],
      resourcePolicy,
      request: request('sqs:SendMessage', QUEUE),
    });

    expect(result.decision).toBe(expected);
  });

  it('takes the caller as principal { arn } or { service }, and the service from the action', () => {
    const kmsRequest = request('kms:Decrypt', KEY);
    const delivery = request('sqs:SendMessage', QUEUE, { 'aws:SourceArn': RULE });

    const role = authorize({ identityPolicies: [functionPolicy], principal: { arn: ROLE }, request: kmsRequest });
    const withKeyPolicy = authorize({
      identityPolicies: [functionPolicy],
      resourcePolicy: keyPolicy,
      principal: { arn: ROLE },
      request: kmsRequest,
    });
    const events = authorize({
      identityPolicies: [],
      resourcePolicy: queuePolicy,
      principal: { service: 'events.amazonaws.com' },
      request: delivery,
    });

    expect(role).toMatchObject({ decision: 'deny', deniedBy: 'resource' });
    expect(withKeyPolicy).toMatchObject({ decision: 'allow', matchedGrants: [`kms:Decrypt ${KEY}`] });
    expect(events).toMatchObject({ decision: 'allow', allowedBy: 'resource' });
  });

  it('treats context values that are not strings, numbers or booleans as absent', () => {
    const identityPolicies = [
      doc({ Effect: 'Allow', Action: 'sqs:*', Resource: '*', Condition: { Null: { 'aws:SourceArn': 'true' } } }),
    ];

    const result = authorize({
      ...base,
      identityPolicies,
      request: { action: 'sqs:SendMessage', resource: QUEUE, context: { 'aws:SourceArn': { arn: RULE }, other: null } },
    });

    expect(result.decision).toBe('allow');
  });

  describe('for KMS', () => {
    const kms = { principalArn: SESSION, service: 'kms' };

    it('allows through the key policy root delegation when the identity policy allows', () => {
      const result = authorize({
        ...kms,
        identityPolicies: [functionPolicy],
        resourcePolicy: keyPolicy,
        request: request('kms:Decrypt', KEY),
      });

      expect(result).toEqual({
        decision: 'allow',
        reason: 'allowed',
        allowedBy: 'identity',
        matchedGrants: [`kms:Decrypt ${KEY}`],
      });
    });

    it('denies through the root delegation when the identity policy does not allow', () => {
      const result = authorize({
        ...kms,
        identityPolicies: [functionPolicy],
        resourcePolicy: keyPolicy,
        request: request('kms:Encrypt', KEY),
      });

      expect(result).toEqual({ decision: 'deny', reason: 'no-allow', deniedBy: 'identity', matchedGrants: [] });
    });

    it('denies without a key policy even when the identity policy allows', () => {
      const result = authorize({ ...kms, identityPolicies: [functionPolicy], request: request('kms:Decrypt', KEY) });

      expect(result).toMatchObject({ decision: 'deny', reason: 'no-allow', deniedBy: 'resource' });
    });

    it('allows a key policy statement naming the role, without an identity Allow', () => {
      const resourcePolicy = doc({
        Effect: 'Allow',
        Principal: { AWS: ROLE },
        Action: ['kms:Encrypt', 'kms:Decrypt'],
        Resource: '*',
      });

      const result = authorize({ ...kms, identityPolicies: [], resourcePolicy, request: request('kms:Encrypt', KEY) });

      expect(result).toMatchObject({ decision: 'allow', allowedBy: 'resource' });
    });

    it('denies a key policy Deny over the delegation', () => {
      const resourcePolicy = doc(
        { Effect: 'Allow', Principal: { AWS: ROOT }, Action: 'kms:*', Resource: '*' },
        {
          Effect: 'Deny',
          Principal: '*',
          Action: 'kms:Decrypt',
          Resource: '*',
          Condition: { StringNotEquals: { 'kms:EncryptionContext:purpose': 'webhook' } },
        },
      );

      const result = authorize({
        ...kms,
        identityPolicies: [functionPolicy],
        resourcePolicy,
        request: request('kms:Decrypt', KEY),
      });

      expect(result).toMatchObject({ decision: 'deny', reason: 'explicit-deny', deniedBy: 'resource' });
    });
  });
});
