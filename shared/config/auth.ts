import type { issueToken } from '#shared/domain/auth/issue-token';
import { accessStatusStore } from './access.ts';
import { clock, config } from './core.ts';
import { identityStore } from './dynamodb.ts';
import { instance, lazyDeps } from './instances.ts';
import { signingKeyStore } from './keys.ts';

export function issueTokenDeps(): Parameters<typeof issueToken>[0] {
  return instance(issueTokenDeps, () =>
    lazyDeps({
      config,
      clock,
      identity: identityStore,
      keys: signingKeyStore,
      // Read at every issue, not cached: the refusal starts at once.
      orgStatus: () => (orgId: string) => accessStatusStore().getOrgStatus(orgId),
    }),
  );
}
