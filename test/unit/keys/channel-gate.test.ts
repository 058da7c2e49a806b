import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { SecretsManagerChannelCredentials } from '#shared/adapters/keys/channel-credentials';
import { AccessStatusCache } from '#shared/domain/auth/access-status';
import type { Channel } from '#shared/domain/orgs/model';
import { ChannelDisabledError, OrgGoneError, OrgSuspendedError } from '#shared/errors';

// CONTRACT §17, §21: the credentials adapter is the one gate to Meta; it refuses before reading any token.
const secrets = mockClient(SecretsManagerClient);
const ACTIVE_ORG = '1c9d7a52-6f0e-4b0a-8a55-3d2b1e0f9a77';
const SUSPENDED_ORG = '0b0e2bd8-3a41-4b7a-9b43-2f7a8e0c1d55';
const ERASED_ORG = '5d6e7f80-1a2b-4c3d-8e9f-0a1b2c3d4e5f';

const channel = (changes: Partial<Channel> = {}) =>
  ({
    channelId: 'ch_1',
    orgId: ACTIVE_ORG,
    phoneNumberId: '100000000000001',
    accessTokenSecretId: 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:channel-ch_1',
    ...changes,
  }) as Channel;

function gate() {
  const statusReads: string[] = [];
  const store = {
    getOrgStatus: async (orgId: string) => {
      statusReads.push(orgId);
      return orgId === SUSPENDED_ORG ? ('suspended' as const) : orgId === ERASED_ORG ? undefined : ('active' as const);
    },
    getCredential: async () => undefined,
    // No status copy and no organisation: erased.
    getOrgRecord: async () => undefined,
  };
  const credentials = new SecretsManagerChannelCredentials(
    () => new SecretsManagerClient({}),
    new AccessStatusCache(store, 30_000),
  );
  return { credentials, statusReads };
}

beforeEach(() => {
  secrets.reset();
  secrets.on(GetSecretValueCommand).resolves({ SecretString: 'secret-token' });
});

describe('SecretsManagerChannelCredentials, the network gate', () => {
  it('refuses a disabled channel with ChannelDisabledError (422 CHANNEL_DISABLED), reading no token', async () => {
    const { credentials } = gate();

    const refusal = credentials.forChannel(channel({ disabledAt: '2026-11-22T10:00:00.000Z', accessToken: 'local' }));

    await expect(refusal).rejects.toBeInstanceOf(ChannelDisabledError);
    await expect(refusal).rejects.toMatchObject({ code: 'CHANNEL_DISABLED' });
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(0);
  });

  it('refuses a channel of a suspended organisation with OrgSuspendedError, reading no token', async () => {
    const { credentials, statusReads } = gate();

    const refusal = credentials.forChannel(channel({ orgId: SUSPENDED_ORG }));

    await expect(refusal).rejects.toBeInstanceOf(OrgSuspendedError);
    await expect(refusal).rejects.toMatchObject({ code: 'ORG_SUSPENDED' });
    expect(statusReads).toEqual([SUSPENDED_ORG]);
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(0);
  });

  it('refuses a channel of an erased organisation with OrgGoneError (its job is dropped), reading no token', async () => {
    const { credentials } = gate();

    const refusal = credentials.forChannel(channel({ orgId: ERASED_ORG }));

    await expect(refusal).rejects.toBeInstanceOf(OrgGoneError);
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(0);
  });

  it('gives an enabled channel of an active organisation its token, from the record or its secret', async () => {
    const { credentials } = gate();

    const stored = await credentials.forChannel(channel({ accessToken: 'local', accessTokenSecretId: undefined }));
    const fromSecret = await credentials.forChannel(channel());

    expect(stored).toEqual({ phoneNumberId: '100000000000001', accessToken: 'local' });
    expect(fromSecret).toEqual({ phoneNumberId: '100000000000001', accessToken: 'secret-token' });
  });

  it('lets a channel through again once it is enabled (the channel is read per call, not cached)', async () => {
    const { credentials } = gate();
    const disabled = channel({ accessToken: 'local', disabledAt: '2026-11-22T10:00:00.000Z' });

    await expect(credentials.forChannel(disabled)).rejects.toBeInstanceOf(ChannelDisabledError);
    const enabled = await credentials.forChannel({ ...disabled, disabledAt: undefined });

    expect(enabled.accessToken).toBe('local');
  });
});
