import { createHash, randomBytes } from 'node:crypto';
import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { CursorKey } from '#shared/ports/cursor-key';

/** Cursors are authenticated with a hash of the configured material, so any length of text works as a key. */
const derive = (material: string) => createHash('sha256').update(`wp-crm cursor key\0${material}`).digest();

/**
 * On AWS a generated Secrets Manager secret (`CURSOR_KEY_SECRET_ID`), read at most every 5 minutes, a failed read
 * not kept. Locally `CURSOR_SIGNING_KEY`, or a random key per process (cursors then end with the process).
 */
export class SecretsManagerCursorKey implements CursorKey {
  static readonly CACHE_MS = 5 * 60_000;
  #key: { value: Promise<Uint8Array>; readAtMs: number } | undefined;

  constructor(
    private readonly source: { secretId?: string; material?: string },
    private readonly secrets: () => SecretsManagerClient,
    private readonly nowMs: () => number = Date.now,
  ) {
    if (!source.secretId) {
      const key = Promise.resolve(derive(source.material ?? randomBytes(32).toString('base64')));
      this.#key = { value: key, readAtMs: Number.POSITIVE_INFINITY };
    }
  }

  get(): Promise<Uint8Array> {
    const { secretId } = this.source;
    if (!secretId || (this.#key && this.nowMs() - this.#key.readAtMs < SecretsManagerCursorKey.CACHE_MS)) {
      return this.#key!.value;
    }
    const value = this.secrets()
      .send(new GetSecretValueCommand({ SecretId: secretId }))
      .then((result) => {
        if (!result.SecretString) throw new Error('the cursor key secret has no value');
        return derive(result.SecretString);
      });
    const entry = { value, readAtMs: this.nowMs() };
    this.#key = entry;
    value.catch(() => {
      if (this.#key === entry) this.#key = undefined;
    });
    return value;
  }
}
