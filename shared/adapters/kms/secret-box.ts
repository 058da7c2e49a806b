import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { DecryptCommand, EncryptCommand, type KMSClient } from '@aws-sdk/client-kms';
import type { SecretBox } from '#shared/ports/secret-box';

/** AWS: envelope-free KMS encryption (secrets are 40 bytes, far below KMS's 4 KB limit). */
export class KmsSecretBox implements SecretBox {
  constructor(
    private readonly client: KMSClient,
    private readonly keyId: string,
  ) {}

  async seal(plaintext: string): Promise<string> {
    const result = await this.client.send(new EncryptCommand({ KeyId: this.keyId, Plaintext: Buffer.from(plaintext) }));
    return `kms:${Buffer.from(result.CiphertextBlob ?? new Uint8Array()).toString('base64')}`;
  }

  async open(sealed: string): Promise<string> {
    const blob = Buffer.from(sealed.replace(/^kms:/, ''), 'base64');
    const result = await this.client.send(new DecryptCommand({ KeyId: this.keyId, CiphertextBlob: blob }));
    return Buffer.from(result.Plaintext ?? new Uint8Array()).toString('utf8');
  }
}

/** Local stack: AES-256-GCM under a 32-byte key generated once into the data dir. */
export class LocalSecretBox implements SecretBox {
  #key: Buffer | undefined;

  constructor(private readonly keyFile: string) {}

  async seal(plaintext: string): Promise<string> {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#load(), iv);
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `gcm:${Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64')}`;
  }

  async open(sealed: string): Promise<string> {
    const raw = Buffer.from(sealed.replace(/^gcm:/, ''), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.#load(), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }

  #load(): Buffer {
    this.#key ??= Buffer.from(readFileSync(this.keyFile, 'utf8').trim(), 'base64');
    return this.#key;
  }
}
