import { DeleteSecretCommand, PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { DynamoIdentityStore } from '#shared/adapters/dynamodb/identity-store';
import { DynamoOrgAdminStore } from '#shared/adapters/dynamodb/org-admin-store';
import { S3OrgFiles } from '#shared/adapters/s3/org-files';
import { S3Rest } from '#shared/adapters/s3/s3-rest';
import { DEFAULT_DRAIN_SECONDS, eraseOrg } from '#shared/domain/orgs/erase-org';
import type { Channel } from '#shared/domain/orgs/model';
import {
  listChannels,
  listCredentials,
  listOrgs,
  type OperateDeps,
  revokeCredential,
  rotateCredential,
  setOrgStatus,
  showOrg,
  updateChannel,
} from '#shared/domain/orgs/operate';
import { systemClock } from '#shared/ports/clock';
import { type Command, command } from './command.ts';
import { invalid } from './errors.ts';
import type { Target } from './target.ts';

const ORG_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const CLIENT_ID = /^cli_[0-9A-Z]{26}$/;
const CHANNEL_ID = /^ch_[0-9A-Za-z_-]{1,64}$/;
const LANGUAGE = /^[a-z]{2,3}(_[A-Z]{2})?$/;

function orgId(value: string): string {
  if (!ORG_ID.test(value)) throw invalid('--org must be an organisation id (a lowercase UUID)');
  return value;
}

function clientId(value: string): string {
  if (!CLIENT_ID.test(value)) throw invalid('--client-id must be a client id (cli_ and 26 characters)');
  return value;
}

function channelId(value: string): string {
  if (!CHANNEL_ID.test(value)) throw invalid('--channel must be a channel id (ch_…)');
  return value;
}

function bool(flag: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value !== 'true' && value !== 'false') throw invalid(`--${flag} must be true or false`);
  return value === 'true';
}

function seconds(flag: string, value: string | undefined): number {
  if (value === undefined) return 0;
  if (!/^\d{1,9}$/.test(value)) throw invalid(`--${flag} must be a whole number of seconds (0 or more)`);
  return Number(value);
}

/**
 * Where a channel's new token goes: the channel item on the local stacks; on AWS its Secrets Manager secret (the
 * functions read it through a 5-minute cache), never the table.
 */
const channelTokens = (target: Target): OperateDeps['channelTokens'] => ({
  async put(channel: Channel, token: string) {
    if (target.kind === 'local') return { accessToken: token, accessTokenSecretId: null };
    if (!channel.accessTokenSecretId) {
      throw invalid(
        `channel ${channel.channelId} has no token secret; create one named wp-crm/<stage>/channels/${channel.orgId}/${channel.channelId} (its organisation's prefix: CONTRACT §25) and pass --access-token-secret-id`,
      );
    }
    const secrets = new SecretsManagerClient({ maxAttempts: 3 });
    try {
      await secrets.send(new PutSecretValueCommand({ SecretId: channel.accessTokenSecretId, SecretString: token }));
    } finally {
      secrets.destroy();
    }
    return {};
  },
});

const operateDeps = (target: Target): OperateDeps => ({
  clock: systemClock,
  identity: new DynamoIdentityStore(target.db, target.tableName),
  admin: new DynamoOrgAdminStore(target.db, target.tableName),
  channelTokens: channelTokens(target),
});

const ORG = { value: '<orgId>', required: true } as const;

/**
 * Where `org delete` deletes channel token secrets: on AWS with the operator's credentials; under start:cdk through its
 * AWS gateway with the operator session of this run (the template's ChannelTokensRole, IAM enforced); `npm start`
 * keeps tokens on the channel items.
 */
function channelSecrets(target: Target) {
  const client = () =>
    target.kind === 'aws'
      ? new SecretsManagerClient({ maxAttempts: 3 })
      : new SecretsManagerClient({
          maxAttempts: 3,
          region: target.operator!.region,
          endpoint: target.operator!.endpoint,
          credentials: target.operator!.credentials,
        });
  if (target.kind !== 'aws' && !target.operator) return undefined;
  return {
    async delete(secretId: string) {
      const secrets = client();
      try {
        await secrets.send(new DeleteSecretCommand({ SecretId: secretId, ForceDeleteWithoutRecovery: true }));
      } catch (error) {
        if ((error as Error).name !== 'ResourceNotFoundException') throw error;
      } finally {
        secrets.destroy();
      }
    },
  };
}

/** What `org delete` erases through besides the table: the reports bucket and the channels' token secrets. */
function eraseDeps(target: Target, drainSeconds: number, io: { err(line: string): void }) {
  if (!target.reports) throw invalid('the target names no reports bucket (its ReportsBucketName output is missing)');
  const { credentials, ...location } = target.reports;
  const s3 = new S3Rest(location, {
    credentials: credentials ? async () => credentials : defaultProvider(),
    requestTimeoutMs: 10_000,
  });
  return {
    clock: systemClock,
    store: new DynamoOrgAdminStore(target.db, target.tableName),
    files: new S3OrgFiles(s3),
    secrets: channelSecrets(target),
    drainSeconds,
    progress: (event: Record<string, unknown>) => io.err(JSON.stringify({ progress: event })),
  };
}

/** The operator's day-two commands (CONTRACT §17): organisations, credentials and channels. */
export const ADMIN_COMMANDS: Record<string, Command> = {
  'org list': command({
    summary: 'List organisations. Prints {"organisations":[{"orgId","name","status","createdAt"}]}.',
    flags: {},
    run: async (_flags, connect) => listOrgs(operateDeps(await connect())),
  }),

  'org show': command({
    summary: 'Show an organisation with counts of its channels, credentials, groups, reports and subscriptions.',
    flags: { org: ORG },
    run: async (flags, connect) => {
      const org = orgId(flags.org);
      return showOrg(operateDeps(await connect()), { orgId: org });
    },
  }),

  'org suspend': command({
    summary:
      'Suspend an organisation: its tokens are refused with 403 ORG_SUSPENDED within 60 s and its queued work waits.',
    flags: { org: ORG },
    run: async (flags, connect) => {
      const org = orgId(flags.org);
      return setOrgStatus(operateDeps(await connect()), { orgId: org, status: 'suspended' });
    },
  }),

  'org resume': command({
    summary: 'Resume a suspended organisation: its tokens work again within 60 s and its waiting work goes on.',
    flags: { org: ORG },
    run: async (flags, connect) => {
      const org = orgId(flags.org);
      return setOrgStatus(operateDeps(await connect()), { orgId: org, status: 'active' });
    },
  }),

  'org delete': command({
    summary: `Erase an organisation and everything of it (records, chats, messages, groups, requests, reports and their files, subscriptions and their secrets, credentials, channels and their tokens). --confirm repeats the id. Its tokens and work are refused at once; it then waits --drain-seconds (default ${DEFAULT_DRAIN_SECONDS}, the longest a request or job that began just before can still write; counted from the first run) before it erases, and sweeps until nothing is left. Run it again after an interruption: it goes on; on an id with nothing left it erases nothing. Prints {"orgId","erased":{<kind>: n}}.`,
    flags: { org: ORG, confirm: { value: '<orgId>', required: true }, 'drain-seconds': { value: '<n>' } },
    run: async (flags, connect, io) => {
      const org = orgId(flags.org);
      if (flags.confirm !== org) throw invalid('--confirm must repeat the --org id exactly');
      const drainSeconds =
        flags['drain-seconds'] === undefined ? DEFAULT_DRAIN_SECONDS : seconds('drain-seconds', flags['drain-seconds']);
      return eraseOrg(eraseDeps(await connect(), drainSeconds, io), { orgId: org });
    },
  }),

  'credential list': command({
    summary: "List an organisation's credentials (never a secret).",
    flags: { org: ORG },
    run: async (flags, connect) => {
      const org = orgId(flags.org);
      return listCredentials(operateDeps(await connect()), { orgId: org });
    },
  }),

  'credential revoke': command({
    summary: 'Revoke a credential: POST /token answers 401 INVALID_CLIENT at once, its tokens 401 within 60 s.',
    flags: { 'client-id': { value: '<clientId>', required: true } },
    run: async (flags, connect) => {
      const id = clientId(flags['client-id']);
      return revokeCredential(operateDeps(await connect()), { clientId: id });
    },
  }),

  'credential rotate': command({
    summary:
      'Give a credential a new secret, printed only here. The old secret keeps working for --overlap-seconds (default 0).',
    flags: { 'client-id': { value: '<clientId>', required: true }, 'overlap-seconds': { value: '<n>' } },
    run: async (flags, connect) => {
      const id = clientId(flags['client-id']);
      const overlapSeconds = seconds('overlap-seconds', flags['overlap-seconds']);
      return rotateCredential(operateDeps(await connect()), { clientId: id, overlapSeconds });
    },
  }),

  'channel list': command({
    summary: "List an organisation's channels with their status (never a token).",
    flags: { org: ORG },
    run: async (flags, connect) => {
      const org = orgId(flags.org);
      return listChannels(operateDeps(await connect()), { orgId: org });
    },
  }),

  'channel update': command({
    summary:
      'Change a channel: its network token (functions use it within 5 minutes), invite template, groups eligibility or name.',
    flags: {
      channel: { value: '<channelId>', required: true },
      'access-token': { value: '<token>' },
      'access-token-secret-id': { value: '<Secrets Manager id>' },
      'invite-template': { value: '<template name>' },
      'invite-template-language': { value: '<code, e.g. en_US>' },
      'groups-eligible': { value: 'true|false' },
      name: { value: '<name>' },
    },
    run: async (flags, connect) => {
      const id = channelId(flags.channel);
      const template = flags['invite-template'];
      const language = flags['invite-template-language'];
      if (flags['access-token'] && flags['access-token-secret-id']) {
        throw invalid('--access-token and --access-token-secret-id exclude each other');
      }
      if ((template === undefined) !== (language === undefined)) {
        throw invalid('--invite-template and --invite-template-language go together');
      }
      if (language !== undefined && !LANGUAGE.test(language)) {
        throw invalid('--invite-template-language must be a template language code such as en or en_US');
      }
      const groupsEligible = bool('groups-eligible', flags['groups-eligible']);
      const changes = [flags['access-token'], flags['access-token-secret-id'], template, groupsEligible, flags.name];
      if (changes.every((change) => change === undefined)) throw invalid('nothing to change: give at least one flag');
      return updateChannel(operateDeps(await connect()), {
        channelId: id,
        name: flags.name,
        groupsEligible,
        accessToken: flags['access-token'],
        accessTokenSecretId: flags['access-token-secret-id'],
        inviteTemplate: template && language ? { name: template, language } : undefined,
      });
    },
  }),

  'channel disable': command({
    summary:
      'Disable a channel: nothing reaches Meta for it; every route that would call Meta answers 422 CHANNEL_DISABLED.',
    flags: { channel: { value: '<channelId>', required: true } },
    run: async (flags, connect) => {
      const id = channelId(flags.channel);
      return updateChannel(operateDeps(await connect()), { channelId: id, disable: true });
    },
  }),

  'channel enable': command({
    summary: 'Enable a disabled channel again: routes and workers call Meta for it again at once.',
    flags: { channel: { value: '<channelId>', required: true } },
    run: async (flags, connect) => {
      const id = channelId(flags.channel);
      return updateChannel(operateDeps(await connect()), { channelId: id, enable: true });
    },
  }),
};
