import { createHash, randomBytes } from 'node:crypto';
import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { CursorKey, CursorKeys } from '#shared/ports/cursor-key';

/** Cursors are authenticated with a hash of the configured material, so any length of text works as a key. */
const derive = (material: string) => createHash('sha256').update(`wp-crm cursor key\0${material}`).digest();

interface Version {
  key: Uint8Array;
  /** When this version was put: for AWSCURRENT, when the previous value was replaced. */
  createdAt?: Date;
}

/** One value read from Secrets Manager, kept at most `maxAgeMs` (CONTRACT §13); a failed read is not kept. */
class Cached<T> {
  #entry: { value: Promise<T>; readAtMs: number } | undefined;

  constructor(
    private readonly read: () => Promise<T>,
    private readonly nowMs: () => number,
  ) {}

  get(maxAgeMs: number): Promise<T> {
    if (this.#entry && this.nowMs() - this.#entry.readAtMs < maxAgeMs) return this.#entry.value;
    const entry = { value: this.read(), readAtMs: this.nowMs() };
    this.#entry = entry;
    entry.value.catch(() => {
      if (this.#entry === entry) this.#entry = undefined;
    });
    return entry.value;
  }
}

/**
 * On AWS a generated Secrets Manager secret (`CURSOR_KEY_SECRET_ID`), read at most every 5 minutes, a failed read
 * not kept. A rotation is a new value of the secret (`put-secret-value`): Secrets Manager then labels the replaced
 * one AWSPREVIOUS, which opens iterators sealed before the rotation (CONTRACT §20). Locally `CURSOR_SIGNING_KEY`
 * (and `CURSOR_PREVIOUS_SIGNING_KEY` after a rotation), or a random key per process (cursors then end with it).
 */
export class SecretsManagerCursorKey implements CursorKey {
  static readonly CACHE_MS = 5 * 60_000;
  /** A refresh re-reads keys read longer ago than this: unknown iterators cost at most a read per stage a minute. */
  static readonly REFRESH_MS = 60_000;
  readonly #local: CursorKeys | undefined;
  readonly #current: Cached<Version>;
  readonly #previous: Cached<Version | undefined>;

  constructor(
    private readonly source: { secretId?: string; material?: string; previousMaterial?: string },
    private readonly secrets: () => SecretsManagerClient,
    nowMs: () => number = Date.now,
  ) {
    if (!source.secretId) {
      this.#local = {
        current: derive(source.material ?? randomBytes(32).toString('base64')),
        previous: source.previousMaterial ? { key: derive(source.previousMaterial) } : undefined,
      };
    }
    this.#current = new Cached(() => this.#read('AWSCURRENT'), nowMs);
    // Never rotated: there is no AWSPREVIOUS version (ResourceNotFoundException), and no previous key.
    this.#previous = new Cached(
      () =>
        this.#read('AWSPREVIOUS').catch((error: unknown) => {
          if ((error as { name?: string }).name === 'ResourceNotFoundException') return undefined;
          throw error;
        }),
      nowMs,
    );
  }

  async get(): Promise<Uint8Array> {
    if (this.#local) return this.#local.current;
    return (await this.#current.get(SecretsManagerCursorKey.CACHE_MS)).key;
  }

  async keys(options: { refresh?: boolean } = {}): Promise<CursorKeys> {
    if (this.#local) return this.#local;
    const maxAgeMs = options.refresh ? SecretsManagerCursorKey.REFRESH_MS : SecretsManagerCursorKey.CACHE_MS;
    const [current, previous] = await Promise.all([this.#current.get(maxAgeMs), this.#previous.get(maxAgeMs)]);
    return {
      current: current.key,
      previous: previous && { key: previous.key, replacedAt: current.createdAt },
    };
  }

  async #read(stage: 'AWSCURRENT' | 'AWSPREVIOUS'): Promise<Version> {
    const result = await this.secrets().send(
      new GetSecretValueCommand({ SecretId: this.source.secretId, VersionStage: stage }),
    );
    if (!result.SecretString) throw new Error(`the cursor key secret has no ${stage} value`);
    return { key: derive(result.SecretString), createdAt: result.CreatedDate };
  }
}
