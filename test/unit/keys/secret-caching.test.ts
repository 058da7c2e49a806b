import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { publicKeysKey } from '#shared/adapters/dynamodb/keys';
import { DynamoPublicKeyStore } from '#shared/adapters/dynamodb/public-key-store';
import { SecretsManagerChannelCredentials } from '#shared/adapters/keys/channel-credentials';
import { SecretsManagerCursorKey } from '#shared/adapters/keys/cursor-key';
import { SecretsManagerKeySetStore } from '#shared/adapters/keys/secrets-manager-key-set';
import { SecretsManagerWhatsAppSecrets } from '#shared/adapters/keys/whatsapp-secrets';
import type { Channel } from '#shared/domain/orgs/model';

// CONTRACT §13: secrets and keys read from AWS are reused for at most 5 minutes, and a failed read is not cached.
const secrets = mockClient(SecretsManagerClient);
const dynamo = mockClient(DynamoDBDocumentClient);
const minutes = (count: number) => vi.advanceTimersByTime(count * 60_000);
const throttled = Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });

const channel = {
  channelId: 'ch_1',
  phoneNumberId: '100000000000001',
  accessTokenSecretId: 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:channel-ch_1',
} as Channel;

const active = { workStatus: async () => 'active' as const };

const keySet = (activeKid: string) =>
  JSON.stringify({
    activeKid,
    keys: [{ kty: 'EC', crv: 'P-256', x: 'x', y: 'y', d: 'd', kid: activeKid }],
  });

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  secrets.reset();
  dynamo.reset();
});
afterEach(() => vi.useRealTimers());

describe('channel access tokens from Secrets Manager', () => {
  it('reuses a token for 5 minutes, then reads the operator’s new one', async () => {
    secrets.on(GetSecretValueCommand).resolvesOnce({ SecretString: 'old' }).resolves({ SecretString: 'new' });
    const credentials = new SecretsManagerChannelCredentials(() => new SecretsManagerClient({}), active);

    expect((await credentials.forChannel(channel)).accessToken).toBe('old');
    minutes(4.9);
    expect((await credentials.forChannel(channel)).accessToken).toBe('old');
    minutes(0.2);
    expect((await credentials.forChannel(channel)).accessToken).toBe('new');
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(2);
  });

  it('does not cache a failed read: the next call reads again', async () => {
    secrets.on(GetSecretValueCommand).rejectsOnce(throttled).resolves({ SecretString: 'token' });
    const credentials = new SecretsManagerChannelCredentials(() => new SecretsManagerClient({}), active);

    await expect(credentials.forChannel(channel)).rejects.toThrow();
    expect((await credentials.forChannel(channel)).accessToken).toBe('token');
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(2);
  });
});

describe('Meta’s app secret from Secrets Manager', () => {
  it('picks up a rotated app secret within 5 minutes and never caches a failure', async () => {
    secrets
      .on(GetSecretValueCommand)
      .rejectsOnce(throttled)
      .resolvesOnce({ SecretString: JSON.stringify({ appSecret: 'a'.repeat(32), verifyToken: 'v' }) })
      .resolves({ SecretString: JSON.stringify({ appSecret: 'b'.repeat(32), verifyToken: 'v' }) });
    const whatsapp = new SecretsManagerWhatsAppSecrets(
      { appSecret: 'local', verifyToken: 'local' },
      'wp-crm/whatsapp',
      () => new SecretsManagerClient({}),
    );

    await expect(whatsapp.get()).rejects.toThrow();
    expect((await whatsapp.get()).appSecret).toBe('a'.repeat(32));
    minutes(3);
    expect((await whatsapp.get()).appSecret).toBe('a'.repeat(32));
    minutes(2.1);
    expect((await whatsapp.get()).appSecret).toBe('b'.repeat(32));
  });
});

describe('the signing key set (the token function)', () => {
  it('signs with the newly activated key within 5 minutes of the activation', async () => {
    secrets
      .on(GetSecretValueCommand)
      .resolvesOnce({ SecretString: keySet('k1') })
      .resolves({ SecretString: keySet('k2') });
    const store = new SecretsManagerKeySetStore(new SecretsManagerClient({}), 'wp-crm/jwt');

    expect((await store.signingKey()).kid).toBe('k1');
    minutes(4.9);
    expect((await store.signingKey()).kid).toBe('k1');
    minutes(0.2);
    expect((await store.signingKey()).kid).toBe('k2');
  });

  it('retries a failed read on the next call instead of keeping the failure', async () => {
    secrets
      .on(GetSecretValueCommand)
      .rejectsOnce(throttled)
      .resolves({ SecretString: keySet('k1') });
    const store = new SecretsManagerKeySetStore(new SecretsManagerClient({}), 'wp-crm/jwt');

    await expect(store.signingKey()).rejects.toThrow();
    expect((await store.signingKey()).kid).toBe('k1');
  });
});

describe('the public JWKS item (verifying functions)', () => {
  const jwks = (...kids: string[]) => ({ Item: { ...publicKeysKey, keys: kids.map((kid) => ({ kty: 'EC', kid })) } });
  const kids = async (store: DynamoPublicKeyStore) => (await store.verificationKeys()).map((key) => key.kid);

  it('stops trusting a retired key within 4 minutes (5 with the verified-token memory)', async () => {
    dynamo.on(GetCommand).resolvesOnce(jwks('k1', 'k2')).resolves(jwks('k2'));
    let now = 0;
    const store = new DynamoPublicKeyStore(DynamoDBDocumentClient.from(new DynamoDBClient({})), 'table', () => now);

    expect(await kids(store)).toEqual(['k1', 'k2']);
    now += 3.9 * 60_000;
    expect(await kids(store)).toEqual(['k1', 'k2']);
    now += 0.2 * 60_000;
    expect(await kids(store)).toEqual(['k2']);
    expect(dynamo.commandCalls(GetCommand)[0]!.args[0].input).toEqual({ TableName: 'table', Key: publicKeysKey });
  });

  it('re-reads at once for an unknown kid, at most once a minute, and never caches a failure', async () => {
    dynamo
      .on(GetCommand)
      .rejectsOnce(throttled)
      .resolvesOnce(jwks('k1'))
      .resolvesOnce(jwks('k1', 'k2'))
      .resolves(jwks('k1', 'k2', 'k3'));
    let now = 0;
    const store = new DynamoPublicKeyStore(DynamoDBDocumentClient.from(new DynamoDBClient({})), 'table', () => now);

    await expect(store.verificationKeys()).rejects.toThrow();
    expect(await kids(store)).toEqual(['k1']);
    await store.refresh();
    expect(await kids(store)).toEqual(['k1', 'k2']);
    now += 10_000;
    await store.refresh();
    expect(await kids(store)).toEqual(['k1', 'k2']);
    now += 51_000;
    await store.refresh();
    expect(await kids(store)).toEqual(['k1', 'k2', 'k3']);
  });
});

describe('the cursor key (listing functions)', () => {
  const notFound = Object.assign(new Error("Secrets Manager can't find the specified secret value"), {
    name: 'ResourceNotFoundException',
  });
  const rotatedAt = new Date('2026-11-20T08:00:00.000Z');
  const cursorKey = () =>
    new SecretsManagerCursorKey({ secretId: 'wp-crm/cursor' }, () => new SecretsManagerClient({}));

  it('gives iterators the value a rotation replaced (AWSPREVIOUS), with the date of the value that replaced it', async () => {
    secrets
      .on(GetSecretValueCommand, { VersionStage: 'AWSCURRENT' })
      .resolves({ SecretString: 'new', CreatedDate: rotatedAt });
    secrets.on(GetSecretValueCommand, { VersionStage: 'AWSPREVIOUS' }).resolves({ SecretString: 'old' });
    const oldKey = await new SecretsManagerCursorKey({ material: 'old' }, () => new SecretsManagerClient({})).get();
    const key = cursorKey();

    const current = await key.get();
    const keys = await key.keys();

    expect(keys).toEqual({ current, previous: { key: oldKey, replacedAt: rotatedAt } });
    expect(current).not.toEqual(oldKey);
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(2);
  });

  it('has no previous key before the first rotation, and reads it again at most every 5 minutes', async () => {
    secrets.on(GetSecretValueCommand, { VersionStage: 'AWSCURRENT' }).resolves({ SecretString: 'first' });
    secrets
      .on(GetSecretValueCommand, { VersionStage: 'AWSPREVIOUS' })
      .rejectsOnce(notFound)
      .resolves({ SecretString: 'first' });
    const key = cursorKey();

    expect((await key.keys()).previous).toBeUndefined();
    minutes(4.9);
    expect((await key.keys()).previous).toBeUndefined();
    minutes(0.2);
    expect((await key.keys()).previous).toBeDefined();
  });

  it('reads the keys again on a refresh at most once a minute, and never caches a failure', async () => {
    secrets
      .on(GetSecretValueCommand, { VersionStage: 'AWSCURRENT' })
      .rejectsOnce(throttled)
      .resolvesOnce({ SecretString: 'k1' })
      .resolves({ SecretString: 'k2' });
    secrets.on(GetSecretValueCommand, { VersionStage: 'AWSPREVIOUS' }).rejects(notFound);
    const key = cursorKey();

    await expect(key.keys()).rejects.toThrow();
    const first = (await key.keys()).current;
    minutes(0.9);
    const tooSoon = (await key.keys({ refresh: true })).current;
    minutes(0.2);
    const refreshed = (await key.keys({ refresh: true })).current;

    expect(tooSoon).toEqual(first);
    expect(refreshed).not.toEqual(first);
    expect(await key.get()).toEqual(refreshed);
  });
});
