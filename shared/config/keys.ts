import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SSMClient } from '@aws-sdk/client-ssm';
import { AwsKeyStore } from '#shared/adapters/keys/aws-key-store';
import { SecretsManagerCursorKey } from '#shared/adapters/keys/cursor-key';
import { FileKeyStore } from '#shared/adapters/keys/file-key-store';
import type { CursorKey } from '#shared/ports/cursor-key';
import type { KeyStore } from '#shared/ports/key-store';
import { config } from './core.ts';
import { instance } from './instances.ts';

/**
 * The keys that verify access tokens: on AWS the public JWKS in SSM (every token-verifying function and the JWKS
 * endpoint), locally the stack's key file.
 */
export function verificationKeyStore(): KeyStore {
  return instance(verificationKeyStore, () => {
    const { jwt, aws } = config();
    if (jwt.keysFile) return new FileKeyStore(jwt.keysFile);
    return new AwsKeyStore(
      { ssm: jwt.publicKeysParameter ? new SSMClient({ region: aws.region }) : undefined },
      { publicKeysParameter: jwt.publicKeysParameter },
    );
  });
}

/** The keys that sign access tokens: on AWS the private key set in Secrets Manager (only the token function). */
export function signingKeyStore(): KeyStore {
  return instance(signingKeyStore, () => {
    const { jwt, aws } = config();
    if (jwt.keysFile) return new FileKeyStore(jwt.keysFile);
    return new AwsKeyStore(
      { secrets: jwt.signingSecretId ? new SecretsManagerClient({ region: aws.region }) : undefined },
      { signingSecretId: jwt.signingSecretId },
    );
  });
}

/** The key that authenticates list cursors: a generated secret on AWS (only the listing functions read it). */
export function cursorKey(): CursorKey {
  return instance(cursorKey, () => {
    const { cursors, aws } = config();
    return new SecretsManagerCursorKey(
      { secretId: cursors.keySecretId, material: cursors.signingKey },
      () => new SecretsManagerClient({ region: aws.region }),
    );
  });
}
