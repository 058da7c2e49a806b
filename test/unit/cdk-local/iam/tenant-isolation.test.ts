// biome-ignore-all lint/suspicious/noTemplateCurlyInString: IAM policy variables (${aws:PrincipalTag/org}) are plain strings here
import { describe, expect, it } from 'vitest';
import { type DescribeContext, describeAwsCall, type HttpRequest } from '#infra/cdk-local/iam/aws-request';
import {
  type AccessRequest,
  authorize,
  type Decision,
  evaluate,
  type PolicyDocument,
  type PolicyStatement,
  type RequestContext,
} from '#infra/cdk-local/iam/policy';
import { sessionTerms } from '#infra/cdk-local/sts';
import { delegatingKeyPolicy, keysOnlyDueListPolicy, tenantAccessPolicy } from '#test/support/tenant-policies';

const ACCOUNT = '000000000000';
const REGION = 'eu-west-1';
const TABLE_NAME = 'WpCrm-dev-Table';
const TABLE = `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${TABLE_NAME}`;
const BUCKET = 'wpcrm-dev-reports';
const KEY = `arn:aws:kms:${REGION}:${ACCOUNT}:key/0d6f3c6e-1111-4222-8333-944455556666`;
const SESSION = `arn:aws:sts::${ACCOUNT}:assumed-role/WpCrm-dev-TenantAccess/GroupsFn-org`;
const A = '0b4c9a52-6d1e-4f7a-9c3b-2e8d5f1a7c60';
const B = '7f3e2d1c-0b9a-4887-a665-544332211000';
const tenant = tenantAccessPolicy({
  account: ACCOUNT,
  region: REGION,
  stage: 'dev',
  tableArn: TABLE,
  bucket: BUCKET,
  keyArn: KEY,
});
const tagged = (org: string | undefined): RequestContext => (org === undefined ? {} : { 'aws:PrincipalTag/org': org });
const doc = (...statements: PolicyStatement[]): PolicyDocument => ({ Version: '2012-10-17', Statement: statements });
const request = (action: string, resource: string, context: RequestContext = {}): AccessRequest => ({
  action,
  resource,
  context,
});

describe('policy variables (IAM User Guide, "IAM policy elements: Variables and tags")', () => {
  const object = (key: string) => `arn:aws:s3:::${BUCKET}/${key}`;
  const reports = doc({ Effect: 'Allow', Action: 's3:GetObject', Resource: object('org/${aws:PrincipalTag/org}/*') });

  it.each<[string, PolicyDocument, AccessRequest, Decision]>([
    [
      "a session's tag in the resource: its own prefix",
      reports,
      request('s3:GetObject', object(`org/${A}/r.csv`), tagged(A)),
      'allow',
    ],
    [
      "another organisation's prefix",
      reports,
      request('s3:GetObject', object(`org/${B}/r.csv`), tagged(A)),
      'implicit-deny',
    ],
    ['no tag: the resource matches nothing', reports, request('s3:GetObject', object('org//r.csv')), 'implicit-deny'],
    [
      'key names are case-insensitive, the tag key included',
      doc({ Effect: 'Allow', Action: 's3:GetObject', Resource: object('org/${AWS:principaltag/ORG}/*') }),
      request('s3:GetObject', object(`org/${A}/r.csv`), tagged(A)),
      'allow',
    ],
    [
      "a default value stands in for a missing key (`${key, 'default'}`)",
      doc({ Effect: 'Allow', Action: 's3:GetObject', Resource: object("org/${aws:PrincipalTag/org, 'none'}/*") }),
      request('s3:GetObject', object('org/none/r.csv')),
      'allow',
    ],
    [
      '${*} is a literal asterisk, not a wildcard',
      doc({ Effect: 'Allow', Action: 's3:GetObject', Resource: object('org/${*}') }),
      request('s3:GetObject', object('org/anything')),
      'implicit-deny',
    ],
    [
      '${*} matches the asterisk itself',
      doc({ Effect: 'Allow', Action: 's3:GetObject', Resource: object('org/${*}') }),
      request('s3:GetObject', object('org/*')),
      'allow',
    ],
    [
      '${?} and ${$} are a literal question mark and dollar sign',
      doc({ Effect: 'Allow', Action: 's3:GetObject', Resource: object('q${?}/${$}{x}') }),
      request('s3:GetObject', object('q?/${x}')),
      'allow',
    ],
    [
      'a multivalued key is no variable (aws:TagKeys)',
      doc({ Effect: 'Allow', Action: 's3:GetObject', Resource: object('${aws:TagKeys}/*') }),
      request('s3:GetObject', object('org/r.csv'), { 'aws:TagKeys': ['org'] }),
      'implicit-deny',
    ],
    [
      'variables are literal text without Version 2012-10-17',
      { Statement: [{ Effect: 'Allow', Action: 's3:GetObject', Resource: object('org/${aws:PrincipalTag/org}/*') }] },
      request('s3:GetObject', object('org/${aws:PrincipalTag/org}/r.csv'), tagged(A)),
      'allow',
    ],
  ])('%s', (_name, document, accessRequest, expected) => {
    expect(evaluate([document], accessRequest)).toBe(expected);
  });

  const condition = (operator: string, value: string, context: RequestContext) =>
    evaluate(
      [
        doc({
          Effect: 'Allow',
          Action: 's3:GetObject',
          Resource: '*',
          Condition: { [operator]: { 's3:ExistingObjectTag/org': value } },
        }),
      ],
      request('s3:GetObject', object('x'), context),
    );

  it.each<[string, string, RequestContext, Decision]>([
    ['StringEquals with the tag', 'StringEquals', { ...tagged(A), 's3:ExistingObjectTag/org': A }, 'allow'],
    ['StringEquals with another tag', 'StringEquals', { ...tagged(B), 's3:ExistingObjectTag/org': A }, 'implicit-deny'],
    // "condition operators like StringEquals or StringLike do not match" a variable with no value…
    ['StringEquals without the tag', 'StringEquals', { 's3:ExistingObjectTag/org': A }, 'implicit-deny'],
    ['StringLike without the tag', 'StringLike', { 's3:ExistingObjectTag/org': A }, 'implicit-deny'],
    // …"inverted condition operators like StringNotEquals or StringNotLike do match against a null value".
    ['StringNotEquals without the tag', 'StringNotEquals', { 's3:ExistingObjectTag/org': A }, 'allow'],
    ['StringNotLike without the tag', 'StringNotLike', { 's3:ExistingObjectTag/org': A }, 'allow'],
    [
      'StringNotEquals with the same tag',
      'StringNotEquals',
      { ...tagged(A), 's3:ExistingObjectTag/org': A },
      'implicit-deny',
    ],
    ['ArnLike with the tag', 'ArnLike', { ...tagged(A), 's3:ExistingObjectTag/org': A }, 'implicit-deny'],
  ])('%s', (_name, operator, context, expected) => {
    expect(condition(operator, '${aws:PrincipalTag/org}', context)).toBe(expected);
  });

  it('expands variables in ARN operators, and never in numeric ones (only string and ARN operators take them)', () => {
    const arn = `arn:aws:iam::${ACCOUNT}:role/WpCrm-dev-${A}`;
    const arnLike = doc({
      Effect: 'Allow',
      Action: 's3:GetObject',
      Resource: '*',
      Condition: { ArnLike: { 'aws:PrincipalArn': `arn:aws:iam::${ACCOUNT}:role/WpCrm-dev-\${aws:PrincipalTag/org}` } },
    });
    const numeric = doc({
      Effect: 'Allow',
      Action: 's3:GetObject',
      Resource: '*',
      Condition: { NumericEquals: { 's3:max-keys': '${aws:PrincipalTag/limit}' } },
    });

    expect(evaluate([arnLike], request('s3:GetObject', object('x'), { ...tagged(A), 'aws:PrincipalArn': arn }))).toBe(
      'allow',
    );
    expect(evaluate([arnLike], request('s3:GetObject', object('x'), { ...tagged(B), 'aws:PrincipalArn': arn }))).toBe(
      'implicit-deny',
    );
    expect(
      evaluate([numeric], request('s3:GetObject', object('x'), { 'aws:PrincipalTag/limit': '5', 's3:max-keys': 5 })),
    ).toBe('implicit-deny');
  });
});

describe('the tenant policy beyond DynamoDB', () => {
  const decide = (action: string, resource: string, context: RequestContext, resourcePolicy?: PolicyDocument) =>
    authorize({
      identityPolicies: [tenant],
      resourcePolicy,
      principalArn: SESSION,
      request: { action, resource, context: { 'aws:SecureTransport': true, ...context } },
    }).decision;
  const secret = (org: string) =>
    `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:wp-crm/dev/channels/${org}/ch_1-AbC123`;

  it("reaches its organisation's channel secrets only", () => {
    expect(decide('secretsmanager:GetSecretValue', secret(A), tagged(A))).toBe('allow');
    expect(decide('secretsmanager:GetSecretValue', secret(B), tagged(A))).toBe('deny');
    expect(decide('secretsmanager:GetSecretValue', secret(A), {})).toBe('deny');
  });

  it('lists only under its prefix of the reports bucket', () => {
    const bucket = `arn:aws:s3:::${BUCKET}`;
    expect(decide('s3:ListBucket', bucket, { ...tagged(A), 's3:prefix': `org/${A}/2026/` })).toBe('allow');
    expect(decide('s3:ListBucket', bucket, { ...tagged(A), 's3:prefix': `org/${B}/` })).toBe('deny');
    expect(decide('s3:ListBucket', bucket, tagged(A))).toBe('deny');
  });

  it('uses the key only with an encryption context naming its organisation', () => {
    const keyPolicy = delegatingKeyPolicy(ACCOUNT);
    expect(decide('kms:Decrypt', KEY, { ...tagged(A), 'kms:EncryptionContext:orgId': A }, keyPolicy)).toBe('allow');
    expect(decide('kms:Decrypt', KEY, { ...tagged(A), 'kms:EncryptionContext:orgId': B }, keyPolicy)).toBe('deny');
    expect(decide('kms:Decrypt', KEY, tagged(A), keyPolicy)).toBe('deny');
    // Without a key policy KMS refuses whatever the identity policy says.
    expect(decide('kms:Decrypt', KEY, { ...tagged(A), 'kms:EncryptionContext:orgId': A })).toBe('deny');
  });
});

describe('dynamodb:LeadingKeys as the gateway describes DynamoDB calls', () => {
  const partitionKeys: Record<string, string> = {
    [TABLE_NAME]: 'PK',
    [`${TABLE_NAME}/index/GSI1`]: 'GSI1PK',
    [`${TABLE_NAME}/index/GSI2`]: 'GSI2PK',
  };
  const ctx: DescribeContext = {
    account: ACCOUNT,
    partitionKeyName: (table, index) => partitionKeys[index === undefined ? table : `${table}/index/${index}`],
    now: () => new Date('2026-03-01T10:00:00Z'),
  };
  const call = (operation: string, body: Record<string, unknown>): HttpRequest => ({
    method: 'POST',
    path: '/',
    body: Buffer.from(JSON.stringify(body)),
    headers: {
      host: '127.0.0.1:4566',
      'x-amz-date': '20260301T100000Z',
      'x-amz-target': `DynamoDB_20120810.${operation}`,
      authorization: `AWS4-HMAC-SHA256 Credential=ASIAEXAMPLE/20260301/${REGION}/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=abc`,
    },
  });
  /** Every authorization the call needs, decided for a session tagged with `org`. */
  const decisions = (operation: string, body: Record<string, unknown>, org: string | null = A, policy = tenant) => {
    const described = describeAwsCall(call(operation, body), ctx);
    if ('error' in described) throw new Error(described.error);
    return described.authorizations.map((authorization) =>
      evaluate([policy], { ...authorization, context: { ...authorization.context, ...tagged(org ?? undefined) } }),
    );
  };
  const key = (pk: string) => ({ PK: { S: pk }, SK: { S: 'X' } });
  const query = (index: string | undefined, name: string, value: string) => ({
    TableName: TABLE_NAME,
    ...(index ? { IndexName: index } : {}),
    KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :sk)',
    ExpressionAttributeNames: { '#pk': name, '#sk': index ? `${index}SK` : 'SK' },
    ExpressionAttributeValues: { ':pk': { S: value }, ':sk': { S: '2026' } },
  });

  it.each<[string, string, Record<string, unknown>, Decision[]]>([
    ['GetItem of its organisation', 'GetItem', { TableName: TABLE_NAME, Key: key(`ORG#${A}`) }, ['allow']],
    ['GetItem under its organisation', 'GetItem', { TableName: TABLE_NAME, Key: key(`ORG#${A}#FEED`) }, ['allow']],
    ['GetItem of another organisation', 'GetItem', { TableName: TABLE_NAME, Key: key(`ORG#${B}`) }, ['implicit-deny']],
    ['GetItem of a global partition', 'GetItem', { TableName: TABLE_NAME, Key: key(`WAGROUP#123`) }, ['implicit-deny']],
    [
      'GetItem of a key that only starts like its organisation',
      'GetItem',
      { TableName: TABLE_NAME, Key: key(`ORG#${A}X`) },
      ['implicit-deny'],
    ],
    ['PutItem of its status copy', 'PutItem', { TableName: TABLE_NAME, Item: key(`ORGSTATUS#${A}`) }, ['allow']],
    [
      'PutItem of its rate window',
      'PutItem',
      { TableName: TABLE_NAME, Item: key(`RATE#org-requests#${A}`) },
      ['allow'],
    ],
    [
      'PutItem of another rate window',
      'PutItem',
      { TableName: TABLE_NAME, Item: key(`RATE#org-requests#${B}`) },
      ['implicit-deny'],
    ],
    ['Query of its partition', 'Query', query(undefined, 'PK', `ORG#${A}#CHAT#c1`), ['allow']],
    // On an index, LeadingKeys is the index's partition key value (here GSI1PK / GSI2PK).
    ['Query of its GSI1 partition', 'Query', query('GSI1', 'GSI1PK', `ORG#${A}#GROUPS`), ['allow']],
    ['Query of its GSI2 partition', 'Query', query('GSI2', 'GSI2PK', `ORG#${A}#CONTACT`), ['allow']],
    ["Query of another's GSI1 partition", 'Query', query('GSI1', 'GSI1PK', `ORG#${B}#GROUPS`), ['implicit-deny']],
    ['Query of a global index partition', 'Query', query('GSI1', 'GSI1PK', 'RSC#DUE'), ['implicit-deny']],
    [
      'Query with the legacy KeyConditions',
      'Query',
      {
        TableName: TABLE_NAME,
        IndexName: 'GSI1',
        KeyConditions: { GSI1PK: { ComparisonOperator: 'EQ', AttributeValueList: [{ S: `ORG#${B}#GROUPS` }] } },
      },
      ['implicit-deny'],
    ],
    // A Scan has no leading key: ForAllValues would hold over the empty set, the Null guard refuses it.
    ['Scan', 'Scan', { TableName: TABLE_NAME }, ['implicit-deny']],
    [
      'BatchGetItem of its items only',
      'BatchGetItem',
      { RequestItems: { [TABLE_NAME]: { Keys: [key(`ORG#${A}`), key(`ORG#${A}#FEED`)] } } },
      ['allow'],
    ],
    [
      'BatchGetItem with one item of another organisation',
      'BatchGetItem',
      { RequestItems: { [TABLE_NAME]: { Keys: [key(`ORG#${A}`), key(`ORG#${B}`)] } } },
      ['implicit-deny'],
    ],
    [
      'BatchWriteItem with a delete of another organisation',
      'BatchWriteItem',
      {
        RequestItems: {
          [TABLE_NAME]: [{ PutRequest: { Item: key(`ORG#${A}`) } }, { DeleteRequest: { Key: key(`ORG#${B}#FEED`) } }],
        },
      },
      ['implicit-deny'],
    ],
    [
      'TransactWriteItems: each item its own authorization',
      'TransactWriteItems',
      {
        TransactItems: [
          { Put: { TableName: TABLE_NAME, Item: key(`ORG#${A}`) } },
          {
            ConditionCheck: {
              TableName: TABLE_NAME,
              Key: key(`ORG#${A}#POOL`),
              ConditionExpression: 'attribute_exists(PK)',
            },
          },
          { Update: { TableName: TABLE_NAME, Key: key(`ORG#${B}`), UpdateExpression: 'SET a = :a' } },
        ],
      },
      ['allow', 'allow', 'implicit-deny'],
    ],
  ])('%s', (_name, operation, body, expected) => {
    expect(decisions(operation, body)).toEqual(expected);
  });

  it('refuses every item call of a session without the org tag (explicitly: the Deny on a missing tag)', () => {
    expect(decisions('GetItem', { TableName: TABLE_NAME, Key: key(`ORG#${A}`) }, null)).toEqual(['explicit-deny']);
  });

  it('treats a batch as one set of leading keys: ForAnyValue would let a mixed batch through, ForAllValues not', () => {
    const statement = (operator: string): PolicyDocument =>
      doc({
        Effect: 'Allow',
        Action: 'dynamodb:BatchGetItem',
        Resource: TABLE,
        Condition: { [operator]: { 'dynamodb:LeadingKeys': ['ORG#${aws:PrincipalTag/org}'] } },
      });
    const mixed = { RequestItems: { [TABLE_NAME]: { Keys: [key(`ORG#${A}`), key(`ORG#${B}`)] } } };

    expect(decisions('BatchGetItem', mixed, A, statement('ForAnyValue:StringEquals'))).toEqual(['allow']);
    expect(decisions('BatchGetItem', mixed, A, statement('ForAllValues:StringEquals'))).toEqual(['implicit-deny']);
  });

  it("keeps a sweeper's own role to the keys of its due list (a global index partition projecting every attribute)", () => {
    const sweeper = keysOnlyDueListPolicy(TABLE, 'GSI1', ['RSC#DUE']);
    const due = (extra: Record<string, unknown>) =>
      decisions('Query', { ...query('GSI1', 'GSI1PK', 'RSC#DUE'), ...extra }, null, sweeper);

    expect(due({ ProjectionExpression: 'PK, SK, GSI1PK, GSI1SK' })).toEqual(['allow']);
    expect(due({ ProjectionExpression: 'PK, SK' })).toEqual(['allow']);
    // No projection: DynamoDB takes ALL_PROJECTED_ATTRIBUTES, and every attribute of the schedules would come back.
    expect(due({})).toEqual(['implicit-deny']);
    expect(due({ ProjectionExpression: 'PK, SK, recipients' })).toEqual(['implicit-deny']);
    expect(due({ Select: 'ALL_PROJECTED_ATTRIBUTES', ProjectionExpression: 'PK' })).toEqual(['implicit-deny']);
    expect(
      decisions('Query', { ...query('GSI1', 'GSI1PK', 'RPT#OPEN'), ProjectionExpression: 'PK, SK' }, null, sweeper),
    ).toEqual(['implicit-deny']);
  });

  it('gives Query and Scan the Select DynamoDB assumes, and writes ReturnValues NONE, when the request says none', () => {
    const contextOf = (operation: string, body: Record<string, unknown>) => {
      const described = describeAwsCall(call(operation, body), ctx);
      if ('error' in described) throw new Error(described.error);
      return described.authorizations[0]!.context;
    };

    expect(contextOf('Query', query(undefined, 'PK', `ORG#${A}`))['dynamodb:Select']).toBe('ALL_ATTRIBUTES');
    expect(contextOf('Query', query('GSI1', 'GSI1PK', 'RSC#DUE'))['dynamodb:Select']).toBe('ALL_PROJECTED_ATTRIBUTES');
    expect(
      contextOf('Query', { ...query('GSI1', 'GSI1PK', 'RSC#DUE'), ProjectionExpression: 'PK, SK' })['dynamodb:Select'],
    ).toBe('SPECIFIC_ATTRIBUTES');
    expect(contextOf('UpdateItem', { TableName: TABLE_NAME, Key: key('x') })['dynamodb:ReturnValues']).toBe('NONE');
  });
});

describe('STS AssumeRole as the gateway describes and checks it', () => {
  const assume = (parameters: Record<string, string>): HttpRequest => ({
    method: 'POST',
    path: '/',
    body: Buffer.from(new URLSearchParams({ Action: 'AssumeRole', Version: '2011-06-15', ...parameters }).toString()),
    headers: {
      host: '127.0.0.1:4566',
      'content-type': 'application/x-www-form-urlencoded',
      'x-amz-date': '20260301T100000Z',
      authorization: `AWS4-HMAC-SHA256 Credential=ASIAEXAMPLE/20260301/${REGION}/sts/aws4_request, SignedHeaders=host;x-amz-date, Signature=abc`,
    },
  });
  const role = `arn:aws:iam::${ACCOUNT}:role/WpCrm-dev-TenantAccess`;

  it('needs sts:AssumeRole, and sts:TagSession when tags are passed, each with the tags as request tags', () => {
    const tagged = describeAwsCall(
      assume({
        RoleArn: role,
        RoleSessionName: 'fn',
        'Tags.member.1.Key': 'org',
        'Tags.member.1.Value': A,
        'TransitiveTagKeys.member.1': 'org',
      }),
      { account: ACCOUNT },
    );
    const untagged = describeAwsCall(assume({ RoleArn: role, RoleSessionName: 'fn' }), { account: ACCOUNT });
    if ('error' in tagged || 'error' in untagged) throw new Error('not described');

    expect(tagged.authorizations.map(({ action, resource }) => `${action} ${resource}`)).toEqual([
      `sts:AssumeRole ${role}`,
      `sts:TagSession ${role}`,
    ]);
    expect(tagged.authorizations[1]!.context).toMatchObject({
      'aws:RequestTag/org': A,
      'aws:TagKeys': ['org'],
      'sts:TransitiveTagKeys': ['org'],
      'sts:RoleSessionName': 'fn',
    });
    expect(untagged.authorizations.map(({ action }) => action)).toEqual(['sts:AssumeRole']);
  });

  it('keeps incoming transitive tags, refuses a tag key twice (whatever its case) or a transitive key that is no tag', () => {
    const base = { roleArn: role, roleSessionName: 'fn', transitiveTagKeys: [] as string[] };
    const chained = { chained: true, transitiveTags: { tenant: 'x' } };

    expect(sessionTerms({ ...base, tags: [{ key: 'org', value: A }] }, { maxSessionDuration: 3600 }, chained)).toEqual({
      tags: { tenant: 'x', org: A },
      transitiveTags: { tenant: 'x' },
      durationSeconds: 3600,
    });
    expect(() =>
      sessionTerms({ ...base, tags: [{ key: 'Tenant', value: 'y' }] }, { maxSessionDuration: 3600 }, chained),
    ).toThrow(/incoming transitive tag/);
    expect(() =>
      sessionTerms(
        {
          ...base,
          tags: [
            { key: 'org', value: A },
            { key: 'ORG', value: B },
          ],
        },
        { maxSessionDuration: 3600 },
        {},
      ),
    ).toThrow(/Duplicate tag key/);
    expect(() =>
      sessionTerms({ ...base, tags: [], transitiveTagKeys: ['org'] }, { maxSessionDuration: 3600 }, {}),
    ).toThrow(/not a session tag/);
    expect(() =>
      sessionTerms({ ...base, tags: [], durationSeconds: 7200 }, { maxSessionDuration: 43_200 }, chained),
    ).toThrow(/role chaining/);
  });
});
