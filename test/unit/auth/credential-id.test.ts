import { beforeAll, describe, expect, it } from 'vitest';
import { signAccessToken, verifyAccessToken } from '#shared/auth/access-token';
import { credentialIdOf, derivedCredentialId, senderRole } from '#shared/domain/auth/credential-id';
import { MemoryKeyStore } from '#test/support/memory-key-store';

const ORG = '3f1c2a4e-8b7d-4c1a-9e2f-0a1b2c3d4e5f';
const settings = { issuer: 'https://issuer.test', audience: 'wp-crm-api', ttlSeconds: 3600 };
const NOW = new Date('2026-11-22T10:00:00Z');

describe('derivedCredentialId', () => {
  it('gives a credential without an id a stable crd_ id that does not contain its client id', () => {
    const first = derivedCredentialId('cli_01M80K1GW16W9Z1C8MMR7E861R');
    const again = derivedCredentialId('cli_01M80K1GW16W9Z1C8MMR7E861R');
    const other = derivedCredentialId('cli_01M80K1GZ4XXJT0DBNYWF2ECVT');

    expect(first).toMatch(/^crd_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(again).toBe(first);
    expect(other).not.toBe(first);
    expect(first).not.toContain('01M80K1GW16W9Z1C8MMR7E861R');
  });
});

describe('credentialIdOf', () => {
  it('prefers the id stored at creation and derives one only when it is absent', () => {
    expect(credentialIdOf({ clientId: 'cli_1', credentialId: 'crd_01JSTORED' })).toBe('crd_01JSTORED');
    expect(credentialIdOf({ clientId: 'cli_1' })).toBe(derivedCredentialId('cli_1'));
  });
});

describe('senderRole', () => {
  it("shows a credential's role, the first in the contract's order when it has several", () => {
    expect(senderRole(['CRM_BOT'])).toBe('CRM_BOT');
    expect(senderRole(['CRM_AGENT', 'CRM_ADMIN'])).toBe('CRM_ADMIN');
    expect(senderRole([])).toBeUndefined();
  });
});

describe('the credential id in access tokens', () => {
  let keys: MemoryKeyStore;
  beforeAll(async () => {
    keys = await MemoryKeyStore.create();
  });

  it("carries the credential's id to the principal, and derives it for a token issued without one", async () => {
    const subject = { clientId: 'cli_1', orgId: ORG, roles: ['CRM_BOT' as const] };
    const withId = await signAccessToken(keys, settings, { ...subject, credentialId: 'crd_01JABC' }, NOW);
    const withoutId = await signAccessToken(keys, settings, subject, NOW);

    const principal = await verifyAccessToken(keys, settings, withId, NOW);
    const legacy = await verifyAccessToken(keys, settings, withoutId, NOW);

    expect(principal.credentialId).toBe('crd_01JABC');
    expect(legacy.credentialId).toBe(derivedCredentialId('cli_1'));
  });
});
