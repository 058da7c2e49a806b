import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SSMClient } from '@aws-sdk/client-ssm';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { DynamoIdentityStore } from '#shared/adapters/dynamodb/identity-store';
import { AwsKeyStore } from '#shared/adapters/keys/aws-key-store';
import { FileKeyStore } from '#shared/adapters/keys/file-key-store';
import { type Config, config } from '#shared/config/env';
import { type Clock, systemClock } from '#shared/ports/clock';
import { type IdGenerator, ulidIds } from '#shared/ports/ids';
import type { KeyStore } from '#shared/ports/key-store';

/**
 * The composition root: SDK clients and adapters, each built on first use and then kept for the life of the
 * process (one cold start), so a function only creates the clients it actually touches.
 */
export interface Deps {
  config: Config;
  clock: Clock;
  ids: IdGenerator;
  db: DynamoDBDocumentClient;
  identity: DynamoIdentityStore;
  keys: KeyStore;
}

function lazy<T extends object>(factories: { [K in keyof T]: () => T[K] }): T {
  const target = {} as T;
  for (const name of Object.keys(factories) as (keyof T)[]) {
    Object.defineProperty(target, name, {
      enumerable: true,
      configurable: true,
      get() {
        const value = factories[name]();
        Object.defineProperty(target, name, { value, enumerable: true });
        return value;
      },
    });
  }
  return target;
}

function buildDeps(): Deps {
  const cfg = config();
  const deps: Deps = lazy<Deps>({
    config: () => cfg,
    clock: () => systemClock,
    ids: () => ulidIds(),
    db: () => createDocumentClient({ region: cfg.aws.region, endpoint: cfg.aws.endpoints.dynamodb }),
    identity: () => new DynamoIdentityStore(deps.db, cfg.aws.tableName),
    keys: () =>
      cfg.jwt.keysFile
        ? new FileKeyStore(cfg.jwt.keysFile)
        : new AwsKeyStore(
            {
              secrets: cfg.jwt.signingSecretId ? new SecretsManagerClient({ region: cfg.aws.region }) : undefined,
              ssm: cfg.jwt.publicKeysParameter ? new SSMClient({ region: cfg.aws.region }) : undefined,
            },
            { signingSecretId: cfg.jwt.signingSecretId, publicKeysParameter: cfg.jwt.publicKeysParameter },
          ),
  });
  return deps;
}

let cached: Deps | undefined;

/** The process-wide dependencies. */
export function deps(): Deps {
  cached ??= buildDeps();
  return cached;
}

/** Forgets every client; the local stack calls it when it restarts in the same process. */
export function resetDeps(): void {
  cached = undefined;
}
