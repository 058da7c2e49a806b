import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AwsServiceError, AwsServices } from '#infra/cdk-local/services';

const REGION = 'eu-west-1';
const ACCOUNT = '000000000000';
const SECRET_ARN = `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:wp-crm/dev/whatsapp-AbC123`;
const KEY_ID = '3f6c1a2b-9d4e-4f00-a1b2-0123456789ab';
const KEY_ARN = `arn:aws:kms:${REGION}:${ACCOUNT}:key/${KEY_ID}`;
const OTHER_KEY_ID = '9a8b7c6d-1e2f-4a3b-8c4d-5e6f7a8b9c0d';

const b64 = (text: string) => Buffer.from(text).toString('base64');

const servicesWithSecret = () => {
  const services = new AwsServices(undefined, REGION, ACCOUNT);
  services.ensureSecret(SECRET_ARN, 'v1', 'WhatsApp app secret');
  return services;
};

const servicesWithKeys = () => {
  const services = new AwsServices(undefined, REGION, ACCOUNT);
  services.ensureKey(KEY_ID, KEY_ARN);
  services.ensureKey(OTHER_KEY_ID, `arn:aws:kms:${REGION}:${ACCOUNT}:key/${OTHER_KEY_ID}`);
  return services;
};

const failure = (call: () => unknown) => {
  try {
    call();
  } catch (error) {
    if (error instanceof AwsServiceError) return { code: error.code, status: error.status, message: error.message };
    throw error;
  }
  throw new Error('the call succeeded');
};

type SecretValue = { SecretString: string; VersionId: string; VersionStages: string[] };

describe('AwsServices Secrets Manager', () => {
  it('moves AWSCURRENT to a new value and AWSPREVIOUS to the value before', () => {
    const services = servicesWithSecret();

    services.handle('secretsmanager.PutSecretValue', { SecretId: SECRET_ARN, SecretString: 'v2' });
    services.handle('secretsmanager.PutSecretValue', { SecretId: SECRET_ARN, SecretString: 'v3' });

    const current = services.handle('secretsmanager.GetSecretValue', { SecretId: SECRET_ARN }) as SecretValue;
    const previous = services.handle('secretsmanager.GetSecretValue', {
      SecretId: SECRET_ARN,
      VersionStage: 'AWSPREVIOUS',
    }) as SecretValue;
    expect(current).toMatchObject({ SecretString: 'v3', VersionStages: ['AWSCURRENT'] });
    expect(previous).toMatchObject({ SecretString: 'v2', VersionStages: ['AWSPREVIOUS'] });
  });

  it('reads a version by its id', () => {
    const services = servicesWithSecret();
    const { VersionId } = services.handle('secretsmanager.PutSecretValue', {
      SecretId: SECRET_ARN,
      SecretString: 'v2',
    }) as SecretValue;
    services.handle('secretsmanager.PutSecretValue', { SecretId: SECRET_ARN, SecretString: 'v3' });

    const value = services.handle('secretsmanager.GetSecretValue', { SecretId: SECRET_ARN, VersionId });

    expect(value).toMatchObject({ SecretString: 'v2', VersionId });
  });

  it('treats a replayed ClientRequestToken with the same value as the same version', () => {
    const services = servicesWithSecret();
    const token = 'b1a7e0b4-5f0e-4a39-9f57-1e2d3c4b5a69';
    services.handle('secretsmanager.PutSecretValue', { SecretId: SECRET_ARN, SecretString: 'v2' });
    services.handle('secretsmanager.PutSecretValue', {
      SecretId: SECRET_ARN,
      SecretString: 'v3',
      ClientRequestToken: token,
    });

    const replay = services.handle('secretsmanager.PutSecretValue', {
      SecretId: SECRET_ARN,
      SecretString: 'v3',
      ClientRequestToken: token,
    });

    const previous = services.handle('secretsmanager.GetSecretValue', {
      SecretId: SECRET_ARN,
      VersionStage: 'AWSPREVIOUS',
    });
    expect(replay).toMatchObject({ VersionId: token, VersionStages: ['AWSCURRENT'] });
    expect(previous).toMatchObject({ SecretString: 'v2' });
  });

  it('reports the stages a replayed older version actually has', () => {
    const services = servicesWithSecret();
    const token = 'c2b8f1c5-6a1f-4b4a-8a68-2f3e4d5c6b7a';
    services.handle('secretsmanager.PutSecretValue', {
      SecretId: SECRET_ARN,
      SecretString: 'v2',
      ClientRequestToken: token,
    });
    services.handle('secretsmanager.PutSecretValue', { SecretId: SECRET_ARN, SecretString: 'v3' });

    const replay = services.handle('secretsmanager.PutSecretValue', {
      SecretId: SECRET_ARN,
      SecretString: 'v2',
      ClientRequestToken: token,
    });

    const current = services.handle('secretsmanager.GetSecretValue', { SecretId: SECRET_ARN });
    expect(current).toMatchObject({ SecretString: 'v3' });
    expect(replay).toMatchObject({ VersionId: token, VersionStages: ['AWSPREVIOUS'] });
  });

  it('refuses a ClientRequestToken replayed with a different value', () => {
    const services = servicesWithSecret();
    const token = 'd3c9a2d6-7b2a-4c5b-9b79-3a4f5e6d7c8b';
    services.handle('secretsmanager.PutSecretValue', {
      SecretId: SECRET_ARN,
      SecretString: 'v2',
      ClientRequestToken: token,
    });

    const refused = failure(() =>
      services.handle('secretsmanager.PutSecretValue', {
        SecretId: SECRET_ARN,
        SecretString: 'other',
        ClientRequestToken: token,
      }),
    );

    expect(refused.code).toBe('ResourceExistsException');
    expect(services.handle('secretsmanager.GetSecretValue', { SecretId: SECRET_ARN })).toMatchObject({
      SecretString: 'v2',
    });
  });

  it('finds a secret by name, by partial ARN and by full ARN', () => {
    const services = servicesWithSecret();
    const partialArn = SECRET_ARN.slice(0, -'-AbC123'.length);

    const values = ['wp-crm/dev/whatsapp', partialArn, SECRET_ARN].map(
      (SecretId) => services.handle('secretsmanager.GetSecretValue', { SecretId }) as { ARN: string; Name: string },
    );

    expect(values.map(({ ARN, Name }) => [ARN, Name])).toEqual([
      [SECRET_ARN, 'wp-crm/dev/whatsapp'],
      [SECRET_ARN, 'wp-crm/dev/whatsapp'],
      [SECRET_ARN, 'wp-crm/dev/whatsapp'],
    ]);
    expect(services.secretArn(partialArn)).toBe(SECRET_ARN);
  });

  it('answers ResourceNotFoundException for a secret that does not exist', () => {
    const services = servicesWithSecret();

    const refused = failure(() => services.handle('secretsmanager.GetSecretValue', { SecretId: 'wp-crm/dev/nope' }));

    expect(refused).toMatchObject({ code: 'ResourceNotFoundException', status: 400 });
    expect(services.secretArn('wp-crm/dev/nope')).toBeUndefined();
  });

  it('creates a secret with a 6-character suffix that reads back by name', () => {
    const services = servicesWithSecret();

    const created = services.handle('secretsmanager.CreateSecret', {
      Name: 'wp-crm/dev/channels/ch_1',
      SecretString: 'token',
    }) as { ARN: string; VersionId: string };

    expect(created.ARN).toMatch(
      /^arn:aws:secretsmanager:eu-west-1:000000000000:secret:wp-crm\/dev\/channels\/ch_1-[A-Za-z0-9]{6}$/,
    );
    expect(services.handle('secretsmanager.GetSecretValue', { SecretId: 'wp-crm/dev/channels/ch_1' })).toMatchObject({
      ARN: created.ARN,
      SecretString: 'token',
      VersionId: created.VersionId,
    });
  });

  it('refuses to create a secret whose name exists', () => {
    const services = servicesWithSecret();

    const refused = failure(() =>
      services.handle('secretsmanager.CreateSecret', { Name: 'wp-crm/dev/whatsapp', SecretString: 'x' }),
    );

    expect(refused.code).toBe('ResourceExistsException');
  });

  it('keeps the value functions wrote when the deployment ensures the secret again', () => {
    const services = servicesWithSecret();
    services.handle('secretsmanager.PutSecretValue', { SecretId: SECRET_ARN, SecretString: 'rotated' });

    services.ensureSecret(SECRET_ARN, 'v1');

    expect(services.handle('secretsmanager.GetSecretValue', { SecretId: SECRET_ARN })).toMatchObject({
      SecretString: 'rotated',
    });
  });

  it('describes the stages of every version', () => {
    const services = servicesWithSecret();
    const { VersionId } = services.handle('secretsmanager.PutSecretValue', {
      SecretId: SECRET_ARN,
      SecretString: 'v2',
    }) as SecretValue;

    const described = services.handle('secretsmanager.DescribeSecret', { SecretId: SECRET_ARN }) as {
      VersionIdsToStages: Record<string, string[]>;
      Description: string;
    };

    expect(described.Description).toBe('WhatsApp app secret');
    expect(described.VersionIdsToStages[VersionId]).toEqual(['AWSCURRENT']);
    expect(Object.values(described.VersionIdsToStages)).toEqual(
      expect.arrayContaining([['AWSPREVIOUS'], ['AWSCURRENT']]),
    );
  });
});

describe('AwsServices DeleteSecret (org delete of a channel token)', () => {
  it('deletes a secret and its versions at once with ForceDeleteWithoutRecovery; again is no error', () => {
    const services = servicesWithSecret();
    services.handle('secretsmanager.PutSecretValue', { SecretId: SECRET_ARN, SecretString: 'v2' });

    const deleted = services.handle('secretsmanager.DeleteSecret', {
      SecretId: 'wp-crm/dev/whatsapp',
      ForceDeleteWithoutRecovery: true,
    });
    const again = services.handle('secretsmanager.DeleteSecret', {
      SecretId: SECRET_ARN,
      ForceDeleteWithoutRecovery: true,
    });

    expect(deleted).toMatchObject({ ARN: SECRET_ARN, Name: 'wp-crm/dev/whatsapp', DeletionDate: expect.any(Number) });
    expect(again).toMatchObject({ DeletionDate: expect.any(Number) });
    expect(services.secretArn(SECRET_ARN)).toBeUndefined();
    expect(failure(() => services.handle('secretsmanager.GetSecretValue', { SecretId: SECRET_ARN }))).toMatchObject({
      code: 'ResourceNotFoundException',
    });
  });

  it('schedules a secret for deletion after its recovery window: unreadable, not re-creatable, still described', () => {
    const services = servicesWithSecret();

    const scheduled = services.handle('secretsmanager.DeleteSecret', {
      SecretId: SECRET_ARN,
      RecoveryWindowInDays: 7,
    }) as { DeletionDate: number };

    expect(scheduled.DeletionDate * 1000 - Date.now()).toBeGreaterThan(6.9 * 86_400_000);
    expect(failure(() => services.handle('secretsmanager.GetSecretValue', { SecretId: SECRET_ARN }))).toMatchObject({
      code: 'InvalidRequestException',
    });
    expect(
      failure(() => services.handle('secretsmanager.CreateSecret', { Name: 'wp-crm/dev/whatsapp', SecretString: 'x' })),
    ).toMatchObject({ code: 'InvalidRequestException' });
    expect(services.handle('secretsmanager.DescribeSecret', { SecretId: SECRET_ARN })).toMatchObject({
      DeletedDate: scheduled.DeletionDate,
    });
    // Forced afterwards, it goes at once.
    services.handle('secretsmanager.DeleteSecret', { SecretId: SECRET_ARN, ForceDeleteWithoutRecovery: true });
    expect(services.secretArn(SECRET_ARN)).toBeUndefined();
  });

  it('refuses both options together, a window outside 7–30 days, and an unknown secret without force', () => {
    const services = servicesWithSecret();
    const remove = (input: Record<string, unknown>) => () =>
      services.handle('secretsmanager.DeleteSecret', { SecretId: SECRET_ARN, ...input });

    expect(failure(remove({ ForceDeleteWithoutRecovery: true, RecoveryWindowInDays: 7 }))).toMatchObject({
      code: 'InvalidParameterException',
    });
    expect(failure(remove({ RecoveryWindowInDays: 6 }))).toMatchObject({ code: 'InvalidParameterException' });
    expect(failure(remove({ SecretId: 'wp-crm/dev/nothing' }))).toMatchObject({ code: 'ResourceNotFoundException' });
    expect(services.secretArn(SECRET_ARN)).toBe(SECRET_ARN);
  });
});

describe('AwsServices SSM Parameter Store', () => {
  const withParameter = () => {
    const services = new AwsServices(undefined, REGION, ACCOUNT);
    services.ensureParameter('/wp-crm/dev/jwt-public-keys', 'String', '[]');
    return services;
  };

  it('refuses PutParameter without Overwrite on an existing name', () => {
    const services = withParameter();

    const refused = failure(() =>
      services.handle('AmazonSSM.PutParameter', { Name: '/wp-crm/dev/jwt-public-keys', Value: '[1]' }),
    );

    expect(refused.code).toBe('ParameterAlreadyExists');
    expect(services.handle('AmazonSSM.GetParameter', { Name: '/wp-crm/dev/jwt-public-keys' })).toMatchObject({
      Parameter: { Value: '[]', Version: 1 },
    });
  });

  it('increments the version on every overwrite', () => {
    const services = withParameter();

    const second = services.handle('AmazonSSM.PutParameter', {
      Name: '/wp-crm/dev/jwt-public-keys',
      Value: '[1]',
      Overwrite: true,
    });
    const third = services.handle('AmazonSSM.PutParameter', {
      Name: '/wp-crm/dev/jwt-public-keys',
      Value: '[1,2]',
      Overwrite: true,
    });

    expect([second, third]).toEqual([
      { Version: 2, Tier: 'Standard' },
      { Version: 3, Tier: 'Standard' },
    ]);
    expect(services.handle('AmazonSSM.GetParameter', { Name: '/wp-crm/dev/jwt-public-keys' })).toMatchObject({
      Parameter: { Value: '[1,2]', Version: 3 },
    });
  });

  it('finds a parameter with and without the leading slash and by ARN', () => {
    const services = withParameter();
    services.ensureParameter('flat', 'String', 'f');
    const arn = `arn:aws:ssm:${REGION}:${ACCOUNT}:parameter/wp-crm/dev/jwt-public-keys`;

    const names = ['/wp-crm/dev/jwt-public-keys', 'wp-crm/dev/jwt-public-keys', arn].map(
      (Name) => (services.handle('AmazonSSM.GetParameter', { Name }) as { Parameter: { Name: string } }).Parameter.Name,
    );
    const flat = services.handle('AmazonSSM.GetParameter', {
      Name: `arn:aws:ssm:${REGION}:${ACCOUNT}:parameter/flat`,
    });

    expect(names).toEqual([
      '/wp-crm/dev/jwt-public-keys',
      '/wp-crm/dev/jwt-public-keys',
      '/wp-crm/dev/jwt-public-keys',
    ]);
    expect(flat).toMatchObject({
      Parameter: { Name: 'flat', Value: 'f', ARN: `arn:aws:ssm:${REGION}:${ACCOUNT}:parameter/flat` },
    });
  });

  it('answers ParameterNotFound for a name that does not exist', () => {
    const services = withParameter();

    const refused = failure(() => services.handle('AmazonSSM.GetParameter', { Name: '/wp-crm/dev/none' }));

    expect(refused.code).toBe('ParameterNotFound');
  });

  it('lists the names GetParameters did not find as invalid', () => {
    const services = withParameter();

    const result = services.handle('AmazonSSM.GetParameters', {
      Names: ['/wp-crm/dev/jwt-public-keys', '/wp-crm/dev/none', 'other'],
    }) as { Parameters: { Name: string }[]; InvalidParameters: string[] };

    expect(result.Parameters.map((parameter) => parameter.Name)).toEqual(['/wp-crm/dev/jwt-public-keys']);
    expect(result.InvalidParameters).toEqual(['/wp-crm/dev/none', 'other']);
  });

  it('refuses an empty value and one over 4 KB', () => {
    const services = withParameter();

    const empty = failure(() => services.handle('AmazonSSM.PutParameter', { Name: '/a', Value: '' }));
    const large = failure(() => services.handle('AmazonSSM.PutParameter', { Name: '/a', Value: 'x'.repeat(4097) }));

    expect([empty.code, large.code]).toEqual(['ValidationException', 'ValidationException']);
  });
});

describe('AwsServices KMS', () => {
  type Sealed = { CiphertextBlob: string; KeyId: string };

  it('decrypts what it encrypted, with the same encryption context in any order', () => {
    const services = servicesWithKeys();
    const sealed = services.handle('TrentService.Encrypt', {
      KeyId: KEY_ID,
      Plaintext: b64('hello'),
      EncryptionContext: { orgId: 'org_1', purpose: 'token' },
    }) as Sealed;

    const opened = services.handle('TrentService.Decrypt', {
      CiphertextBlob: sealed.CiphertextBlob,
      EncryptionContext: { purpose: 'token', orgId: 'org_1' },
    });

    expect(sealed.KeyId).toBe(KEY_ARN);
    expect(opened).toMatchObject({ Plaintext: b64('hello'), KeyId: KEY_ARN });
  });

  it('refuses to decrypt with a different encryption context', () => {
    const services = servicesWithKeys();
    const sealed = services.handle('TrentService.Encrypt', {
      KeyId: KEY_ARN,
      Plaintext: b64('hello'),
      EncryptionContext: { orgId: 'org_1' },
    }) as Sealed;

    const other = failure(() =>
      services.handle('TrentService.Decrypt', {
        CiphertextBlob: sealed.CiphertextBlob,
        EncryptionContext: { orgId: 'org_2' },
      }),
    );
    const none = failure(() => services.handle('TrentService.Decrypt', { CiphertextBlob: sealed.CiphertextBlob }));

    expect([other.code, none.code]).toEqual(['InvalidCiphertextException', 'InvalidCiphertextException']);
  });

  it('refuses to decrypt when the request names another key', () => {
    const services = servicesWithKeys();
    const sealed = services.handle('TrentService.Encrypt', { KeyId: KEY_ID, Plaintext: b64('hello') }) as Sealed;

    const refused = failure(() =>
      services.handle('TrentService.Decrypt', { CiphertextBlob: sealed.CiphertextBlob, KeyId: OTHER_KEY_ID }),
    );

    expect(refused.code).toBe('IncorrectKeyException');
    expect(
      services.handle('TrentService.Decrypt', { CiphertextBlob: sealed.CiphertextBlob, KeyId: KEY_ARN }),
    ).toMatchObject({ Plaintext: b64('hello') });
  });

  it('refuses a ciphertext that was tampered with', () => {
    const services = servicesWithKeys();
    const sealed = services.handle('TrentService.Encrypt', { KeyId: KEY_ID, Plaintext: b64('hello') }) as Sealed;
    const blob = Buffer.from(sealed.CiphertextBlob, 'base64');
    blob[blob.length - 1]! ^= 0xff;

    const refused = failure(() => services.handle('TrentService.Decrypt', { CiphertextBlob: blob.toString('base64') }));

    expect(refused.code).toBe('InvalidCiphertextException');
  });

  it('generates a data key whose plaintext decrypts from its blob', () => {
    const services = servicesWithKeys();

    const dataKey = services.handle('TrentService.GenerateDataKey', {
      KeyId: KEY_ID,
      KeySpec: 'AES_256',
      EncryptionContext: { orgId: 'org_1' },
    }) as Sealed & { Plaintext: string };

    const opened = services.handle('TrentService.Decrypt', {
      CiphertextBlob: dataKey.CiphertextBlob,
      EncryptionContext: { orgId: 'org_1' },
    });
    expect(Buffer.from(dataKey.Plaintext, 'base64')).toHaveLength(32);
    expect(opened).toMatchObject({ Plaintext: dataKey.Plaintext, KeyId: KEY_ARN });
  });

  it('names the key that produced a ciphertext', () => {
    const services = servicesWithKeys();
    const sealed = services.handle('TrentService.Encrypt', { KeyId: OTHER_KEY_ID, Plaintext: b64('x') }) as Sealed;

    const keyArn = services.keyArnForCiphertext(sealed.CiphertextBlob);

    expect(keyArn).toBe(`arn:aws:kms:${REGION}:${ACCOUNT}:key/${OTHER_KEY_ID}`);
    expect(services.keyArnForCiphertext(b64('not a ciphertext'))).toBeUndefined();
  });

  it('answers NotFoundException for an unknown key', () => {
    const services = servicesWithKeys();

    const refused = failure(() =>
      services.handle('TrentService.Encrypt', { KeyId: '00000000-0000-4000-a000-000000000000', Plaintext: b64('x') }),
    );

    expect(refused.code).toBe('NotFoundException');
  });
});

describe('AwsServices state file', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wpcrm-services-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('gives a new instance over the same file the secrets, parameters and keys of the last', async () => {
    const file = join(dir, 'aws-services.json');
    const first = new AwsServices(file, REGION, ACCOUNT);
    first.ensureSecret(SECRET_ARN, 'v1');
    first.handle('secretsmanager.PutSecretValue', { SecretId: SECRET_ARN, SecretString: 'v2' });
    first.handle('AmazonSSM.PutParameter', { Name: '/wp-crm/dev/p', Value: 'one' });
    first.ensureKey(KEY_ID, KEY_ARN);
    const sealed = first.handle('TrentService.Encrypt', { KeyId: KEY_ID, Plaintext: b64('kept') }) as {
      CiphertextBlob: string;
    };

    const second = new AwsServices(file, REGION, ACCOUNT);

    expect(second.handle('secretsmanager.GetSecretValue', { SecretId: SECRET_ARN })).toMatchObject({
      SecretString: 'v2',
    });
    expect(
      second.handle('secretsmanager.GetSecretValue', { SecretId: SECRET_ARN, VersionStage: 'AWSPREVIOUS' }),
    ).toMatchObject({ SecretString: 'v1' });
    expect(second.handle('AmazonSSM.GetParameter', { Name: '/wp-crm/dev/p' })).toMatchObject({
      Parameter: { Value: 'one', Version: 1 },
    });
    expect(second.handle('TrentService.Decrypt', { CiphertextBlob: sealed.CiphertextBlob })).toMatchObject({
      Plaintext: b64('kept'),
    });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });
});
