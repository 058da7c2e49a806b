import { createHash } from 'node:crypto';
import type { ClientCredential } from '#shared/domain/orgs/model';
import { ROLES, type Role } from './roles.ts';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * The opaque id of a credential created before credentials carried one (CONTRACT §18): derived from the client id
 * by a one-way hash, so it is stable across reads and tokens, yet names no client id and is never usable at /token.
 * Shaped like the ids created now (`crd_` and 26 Crockford base-32 characters).
 */
export function derivedCredentialId(clientId: string): string {
  const digest = createHash('sha256').update(`wp-crm/credential/${clientId}`).digest();
  let bits = 0;
  let value = 0;
  let text = '';
  for (const byte of digest) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5 && text.length < 26) {
      text += CROCKFORD[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
    if (text.length === 26) break;
  }
  return `crd_${text}`;
}

/** A credential's opaque id: the one stored at creation, else the derived one. */
export function credentialIdOf(credential: Pick<ClientCredential, 'clientId' | 'credentialId'>): string {
  return credential.credentialId ?? derivedCredentialId(credential.clientId);
}

/**
 * What outbound messages show as their sender (`from`, CONTRACT §18): the credential's role, the first of its roles
 * in the contract's order when it has several.
 */
export function senderRole(roles: readonly Role[]): Role | undefined {
  return ROLES.find((role) => roles.includes(role));
}
