import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, describe, expect, it } from 'vitest';
import { KmsSecretBox, LocalSecretBox } from '#shared/adapters/kms/secret-box';

const A = { orgId: '0b0e2bd8-3a41-4b7a-9b43-2f7a8e0c1d55', webhookId: 'whk_A' };
const B = { orgId: '0b0e2bd8-3a41-4b7a-9b43-2f7a8e0c1d55', webhookId: 'whk_B' };

describe('LocalSecretBox (issue 19.3: a sealed secret is bound to its subscription)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wpcrm-box-'));
  const keyFile = join(dir, 'key');
  writeFileSync(keyFile, Buffer.alloc(32, 7).toString('base64'));
  const box = new LocalSecretBox(keyFile);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("opens a secret under its own subscription's context, in any key order", async () => {
    const sealed = await box.seal('whsec_abc', A);

    expect(await box.open(sealed, { webhookId: A.webhookId, orgId: A.orgId })).toBe('whsec_abc');
  });

  it("refuses to open it as another subscription's", async () => {
    const sealed = await box.seal('whsec_abc', A);

    await expect(box.open(sealed, B)).rejects.toThrow();
  });

  it('still opens a secret sealed before contexts existed', async () => {
    const { createCipheriv } = await import('node:crypto');
    const iv = Buffer.alloc(12, 1);
    const cipher = createCipheriv('aes-256-gcm', Buffer.alloc(32, 7), iv);
    const data = Buffer.concat([cipher.update('whsec_old', 'utf8'), cipher.final()]);
    const legacy = `gcm:${Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64')}`;

    expect(await box.open(legacy, A)).toBe('whsec_old');
  });
});

describe('KmsSecretBox', () => {
  it('encrypts under the encryption context and decrypts with it; a legacy ciphertext without one', async () => {
    const kms = mockClient(KMSClient);
    kms.on(EncryptCommand).resolves({ CiphertextBlob: Buffer.from('blob') });
    kms.on(DecryptCommand).resolves({ Plaintext: Buffer.from('whsec_abc') });
    const box = new KmsSecretBox(new KMSClient({ region: 'eu-west-1' }), 'key-arn');

    const sealed = await box.seal('whsec_abc', A);
    await box.open(sealed, A);
    await box.open(`kms:${Buffer.from('old').toString('base64')}`, A);

    expect(sealed).toBe(`kms2:${Buffer.from('blob').toString('base64')}`);
    expect(kms.commandCalls(EncryptCommand)[0]!.args[0].input.EncryptionContext).toEqual(A);
    expect(kms.commandCalls(DecryptCommand).map((call) => call.args[0].input.EncryptionContext)).toEqual([
      A,
      undefined,
    ]);
    kms.restore();
  });
});
