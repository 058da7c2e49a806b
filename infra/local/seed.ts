import type { Deps } from '#shared/config/deps';
import type { Role } from '#shared/domain/auth/roles';
import { ROLES } from '#shared/domain/auth/roles';
import { generateRecords } from '#shared/domain/crm/generate-records';
import { createChannel, createCredential, createOrg } from '#shared/domain/orgs/administer';

export interface DemoSeed {
  orgId: string;
  credentials: Record<Role, { clientId: string; clientSecret: string }>;
  channels: { eligible: string; unofficial: string; notOfficialBusinessAccount: string };
}

/** Phone-number id of the demo organisation's eligible channel, known to the WhatsApp simulator. */
export const DEMO_PHONE_NUMBER_ID = '100000000000001';

/** The simulator accepts any bearer token; this one is the demo channels'. */
const SIMULATOR_ACCESS_TOKEN = 'local-simulator-access-token';

/** Demo CRM data: 40 chats and contacts and the records linked to them, the same on every machine. */
const DEMO_SCALE = 40;

/**
 * Seeds a demo organisation: one credential per role, an eligible WhatsApp channel, a non-official channel and an
 * official channel without an Official Business Account, and deterministic demo CRM data for reports.
 */
export async function seedDemo(
  deps: Pick<Deps, 'clock' | 'ids' | 'identity' | 'crm'>,
  options: {
    /**
     * Keeps a channel's access token where the deployment keeps tokens and answers its reference; without it the
     * token is stored in the channel record (the local stack).
     */
    storeToken?: (orgId: string, channelId: string, token: string) => Promise<string>;
  } = {},
): Promise<DemoSeed> {
  const { orgId } = await createOrg(deps, { name: 'Demo Organisation' });
  const credentials = {} as DemoSeed['credentials'];
  for (const role of ROLES) {
    const { clientId, clientSecret } = await createCredential(deps, { orgId, roles: [role] });
    credentials[role] = { clientId, clientSecret };
  }
  const token = async (channelId: string) =>
    options.storeToken
      ? { accessTokenSecretId: await options.storeToken(orgId, channelId, SIMULATOR_ACCESS_TOKEN) }
      : { accessToken: SIMULATOR_ACCESS_TOKEN };
  const eligibleId = deps.ids.next('ch');
  const eligible = await createChannel(deps, {
    orgId,
    channelId: eligibleId,
    name: 'Demo WhatsApp (official)',
    type: 'MESSAGING_OFFICIAL',
    phoneNumber: '+4915100000001',
    officialBusinessAccount: true,
    phoneNumberId: DEMO_PHONE_NUMBER_ID,
    ...(await token(eligibleId)),
  });
  const unofficial = await createChannel(deps, {
    orgId,
    name: 'Demo WhatsApp (unofficial)',
    type: 'MESSAGING_UNOFFICIAL',
    phoneNumber: '+4915100000002',
  });
  const notObaId = deps.ids.next('ch');
  const notOba = await createChannel(deps, {
    orgId,
    channelId: notObaId,
    name: 'Demo WhatsApp (official, no OBA)',
    type: 'MESSAGING_OFFICIAL',
    phoneNumber: '+4915100000003',
    officialBusinessAccount: false,
    phoneNumberId: '100000000000003',
    ...(await token(notObaId)),
  });
  await deps.crm.putRecords(orgId, [...generateRecords({ scale: DEMO_SCALE, seed: 1 })]);
  return {
    orgId,
    credentials,
    channels: {
      eligible: eligible.channelId,
      unofficial: unofficial.channelId,
      notOfficialBusinessAccount: notOba.channelId,
    },
  };
}
