import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { DecryptCommand, EncryptCommand, type KMSClient } from '@aws-sdk/client-kms';
import type { SecretBox, SecretContext } from '#shared/ports/secret-box';

// `kms2:` / `gcm2:` are bound to their context; `kms:` / `gcm:` were sealed before contexts (opened without one, and
// sealed again with one at the subscription's next rotation).
const WITH_CONTEXT = { kms: 'kms2:', gcm: 'gcm2:' };
const LEGACY = { kms: 'kms:', gcm: 'gcm:' };

/** AWS: envelope-free KMS encryption (secrets are 40 bytes, far below KMS's 4 KB limit) under an encryption context. */
export class KmsSecretBox implements SecretBox {
  constructor(
    private readonly client: KMSClient,
    private readonly keyId: string,
  ) {}

  async seal(plaintext: string, context: SecretContext): Promise<string> {
    const result = await this.client.send(
      new EncryptCommand({ KeyId: this.keyId, Plaintext: Buffer.from(plaintext), EncryptionContext: context }),
    );
    return `${WITH_CONTEXT.kms}${Buffer.from(result.CiphertextBlob ?? new Uint8Array()).toString('base64')}`;
  }

  async open(sealed: string, context: SecretContext): Promise<string> {
    const bound = sealed.startsWith(WITH_CONTEXT.kms);
    const blob = Buffer.from(sealed.slice(bound ? WITH_CONTEXT.kms.length : LEGACY.kms.length), 'base64');
    const result = await this.client.send(
      new DecryptCommand({ KeyId: this.keyId, CiphertextBlob: blob, EncryptionContext: bound ? context : undefined }),
    );
    return Buffer.from(result.Plaintext ?? new Uint8Array()).toString('utf8');
  }
}

/** Local stack: AES-256-GCM under a 32-byte key generated once into the data dir; the context is authenticated data. */
export class LocalSecretBox implements SecretBox {
  #key: Buffer | undefined;

  constructor(private readonly keyFile: string) {}

  async seal(plaintext: string, context: SecretContext): Promise<string> {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#load(), iv);
    cipher.setAAD(contextBytes(context));
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `${WITH_CONTEXT.gcm}${Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64')}`;
  }

  async open(sealed: string, context: SecretContext): Promise<string> {
    const bound = sealed.startsWith(WITH_CONTEXT.gcm);
    const raw = Buffer.from(sealed.slice(bound ? WITH_CONTEXT.gcm.length : LEGACY.gcm.length), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.#load(), raw.subarray(0, 12));
    if (bound) decipher.setAAD(contextBytes(context));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }

  #load(): Buffer {
    this.#key ??= Buffer.from(readFileSync(this.keyFile, 'utf8').trim(), 'base64');
    return this.#key;
  }
}

/** The context in one canonical form (keys sorted), as KMS treats it: order does not matter, every pair does. */
function contextBytes(context: SecretContext): Buffer {
  const sorted = Object.keys(context)
    .sort()
    .map((key) => [key, context[key]]);
  return Buffer.from(JSON.stringify(sorted), 'utf8');
}
