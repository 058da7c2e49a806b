import { GetSecretValueCommand, PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { DeleteParameterCommand, PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { DeleteCommand, DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { JWK } from 'jose';
import { beforeEach, describe, expect, it } from 'vitest';
import { handler } from '#functions/jwt-keys/handler';
import { newKeySet } from '#shared/auth/key-set';
import type { KeySetDocument } from '#shared/ports/key-store';

const SECRET_ID = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:jwt-keys';
const PARAMETER = 'jwt-public-keys';

const secrets = mockClient(SecretsManagerClient);
const ssm = mockClient(SSMClient);
const dynamo = mockClient(DynamoDBDocumentClient);
const TABLE = 'wp-crm-table';

describe('jwt-keys handler', () => {
  let writes: string[];

  beforeEach(() => {
    process.env.JWT_SIGNING_SECRET_ID = SECRET_ID;
    process.env.JWT_PUBLIC_KEYS_PARAMETER = PARAMETER;
    process.env.TABLE_NAME = TABLE;
    secrets.reset();
    ssm.reset();
    dynamo.reset();
    writes = [];
    ssm.on(PutParameterCommand).callsFake(() => writes.push('parameter'));
    dynamo.on(PutCommand).callsFake(() => writes.push('item'));
    secrets.on(PutSecretValueCommand).callsFake(() => writes.push('secret'));
  });

  const holds = (secretString: string) =>
    secrets.on(GetSecretValueCommand, { SecretId: SECRET_ID }).resolves({ SecretString: secretString });
  const storedSet = () =>
    JSON.parse(secrets.commandCalls(PutSecretValueCommand)[0]!.args[0].input.SecretString!) as KeySetDocument;
  const publishedKeys = () =>
    (JSON.parse(ssm.commandCalls(PutParameterCommand)[0]!.args[0].input.Value!) as { keys: JWK[] }).keys;

  it('generates a key set on Create when the secret holds only its random initial value', async () => {
    holds('k8#Zq!random-initial-value');

    const result = await handler({ RequestType: 'Create' });

    const set = storedSet();
    expect(set.keys).toHaveLength(1);
    expect(result).toEqual({ PhysicalResourceId: 'jwt-key-set', Data: { ActiveKid: set.activeKid } });
    expect(publishedKeys()).toEqual([expect.objectContaining({ kid: set.activeKid, kty: 'EC', crv: 'P-256' })]);
    expect(publishedKeys()[0]).not.toHaveProperty('d');
    expect(ssm.commandCalls(PutParameterCommand)[0]!.args[0].input).toMatchObject({ Name: PARAMETER, Overwrite: true });
    expect(dynamo.commandCalls(PutCommand)[0]!.args[0].input).toEqual({
      TableName: TABLE,
      Item: { PK: 'JWKS', SK: 'JWKS', entity: 'JWKS', keys: publishedKeys() },
    });
    expect(writes).toEqual(['parameter', 'item', 'secret']);
  });

  it('keeps an existing key set on Create and Update and only republishes its public keys', async () => {
    const existing = await newKeySet();
    holds(JSON.stringify(existing));

    await handler({ RequestType: 'Create' });
    await handler({ RequestType: 'Update', PhysicalResourceId: 'jwt-key-set' });

    expect(secrets.commandCalls(PutSecretValueCommand)).toHaveLength(0);
    expect(publishedKeys().map((key) => key.kid)).toEqual([existing.activeKid]);
  });

  it('removes the published keys on Delete when the stack is disposable', async () => {
    ssm.on(DeleteParameterCommand).resolves({});

    await handler({
      RequestType: 'Delete',
      PhysicalResourceId: 'jwt-key-set',
      ResourceProperties: { RemoveOnDelete: 'true' },
    });

    expect(ssm.commandCalls(DeleteParameterCommand).map((call) => call.args[0].input)).toEqual([{ Name: PARAMETER }]);
    expect(dynamo.commandCalls(DeleteCommand).map((call) => call.args[0].input)).toEqual([
      { TableName: TABLE, Key: { PK: 'JWKS', SK: 'JWKS' } },
    ]);
    expect(secrets.calls()).toHaveLength(0);
  });

  it('leaves the keys alone on Delete', async () => {
    const result = await handler({ RequestType: 'Delete', PhysicalResourceId: 'jwt-key-set' });

    expect(result).toEqual({ PhysicalResourceId: 'jwt-key-set' });
    expect(secrets.calls()).toHaveLength(0);
    expect(ssm.calls()).toHaveLength(0);
    expect(dynamo.calls()).toHaveLength(0);
  });

  it('adds a published but inactive key, publishing it before storing it', async () => {
    const existing = await newKeySet();
    holds(JSON.stringify(existing));

    const result = await handler({ action: 'add' });

    const set = storedSet();
    expect(set.activeKid).toBe(existing.activeKid);
    expect(set.keys).toHaveLength(2);
    expect(publishedKeys().map((key) => key.kid)).toEqual(set.keys.map((key) => key.kid));
    expect(result).toEqual({ activeKid: existing.activeKid, kids: set.keys.map((key) => key.kid) });
    expect(dynamo.commandCalls(PutCommand)[0]!.args[0].input).toEqual({
      TableName: TABLE,
      Item: { PK: 'JWKS', SK: 'JWKS', entity: 'JWKS', keys: publishedKeys() },
    });
    expect(writes).toEqual(['parameter', 'item', 'secret']);
  });

  it('activates a published key and retires the old one', async () => {
    const first = await newKeySet();
    const second = await newKeySet();
    const both: KeySetDocument = { activeKid: first.activeKid, keys: [...first.keys, ...second.keys] };
    holds(JSON.stringify(both));

    await handler({ action: 'activate', kid: second.activeKid });
    expect(storedSet().activeKid).toBe(second.activeKid);

    holds(JSON.stringify(storedSet()));
    secrets.resetHistory();
    ssm.resetHistory();
    await handler({ action: 'retire', kid: first.activeKid });
    expect(storedSet().keys.map((key) => key.kid)).toEqual([second.activeKid]);
    expect(publishedKeys().map((key) => key.kid)).toEqual([second.activeKid]);
  });

  it('refuses to retire the active key and writes nothing', async () => {
    const existing = await newKeySet();
    holds(JSON.stringify(existing));

    await expect(handler({ action: 'retire', kid: existing.activeKid })).rejects.toThrow(/active signing key/);

    expect(writes).toEqual([]);
  });

  it('refuses a rotation before the key set exists, and an unknown action', async () => {
    holds('not-a-key-set');

    await expect(handler({ action: 'add' })).rejects.toThrow(/no key set/);
    holds(JSON.stringify(await newKeySet()));
    await expect(handler({ action: 'rotate' } as never)).rejects.toThrow(/unknown action "rotate"/);
    expect(writes).toEqual([]);
  });
});
