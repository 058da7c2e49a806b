import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SSMClient } from '@aws-sdk/client-ssm';
import { FileKeyStore } from '#shared/adapters/keys/file-key-store';
import { SecretsManagerKeySetStore } from '#shared/adapters/keys/secrets-manager-key-set';
import { SsmPublicKeyStore } from '#shared/adapters/keys/ssm-public-keys';
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
    if (!jwt.publicKeysParameter) throw new Error('JWT_PUBLIC_KEYS_PARAMETER is not configured');
    return new SsmPublicKeyStore(new SSMClient({ region: aws.region }), jwt.publicKeysParameter);
  });
}

/** The keys that sign access tokens: on AWS the private key set in Secrets Manager (only the token function). */
export function signingKeyStore(): KeyStore {
  return instance(signingKeyStore, () => {
    const { jwt, aws } = config();
    if (jwt.keysFile) return new FileKeyStore(jwt.keysFile);
    if (!jwt.signingSecretId) throw new Error('JWT_SIGNING_SECRET_ID is not configured');
    return new SecretsManagerKeySetStore(new SecretsManagerClient({ region: aws.region }), jwt.signingSecretId);
  });
}
