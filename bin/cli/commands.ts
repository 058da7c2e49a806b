import { DynamoIdentityStore } from '#shared/adapters/dynamodb/identity-store';
import { ROLES } from '#shared/domain/auth/roles';
import { createChannel, createCredential, createOrg } from '#shared/domain/orgs/administer';
import { CHANNEL_TYPES } from '#shared/domain/orgs/model';
import { systemClock } from '#shared/ports/clock';
import { ulidIds } from '#shared/ports/ids';
import { invalid } from './errors.ts';
import type { Target } from './target.ts';

/** A `--flag <value>` of a command; every value is a string, checked by the command itself. */
export interface Flag {
  value: string;
  required?: true;
}

/**
 * One `wpcrm <noun> <verb>`. `run` validates its flags before it calls `connect`, so bad input fails with exit 1
 * even when no stack runs. Required flags arrive present and non-empty.
 */
export interface Command {
  summary: string;
  flags: Record<string, Flag>;
  run(flags: Record<string, string | undefined>, connect: () => Promise<Target>): Promise<unknown>;
}

type Values<F> = { [K in keyof F]: F[K] extends { required: true } ? string : string | undefined };

const command = <const F extends Record<string, Flag>>(definition: {
  summary: string;
  flags: F;
  run(flags: Values<F>, connect: () => Promise<Target>): Promise<unknown>;
}): Command => definition;

const ORG_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const E164 = /^\+[1-9]\d{6,14}$/;

function orgId(value: string): string {
  if (!ORG_ID.test(value)) throw invalid('--org must be an organisation id (a lowercase UUID)');
  return value;
}

function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw invalid(`--${flag} must be one of ${allowed.join(', ')}; got ${value}`);
  }
  return value as T;
}

function bool(flag: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value !== 'true' && value !== 'false') throw invalid(`--${flag} must be true or false`);
  return value === 'true';
}

const adminDeps = (target: Target) => ({
  clock: systemClock,
  ids: ulidIds(),
  identity: new DynamoIdentityStore(target.db, target.tableName),
});

/** Every command, by `<noun> <verb>`; `data import` and `data generate` join here. */
export const COMMANDS: Record<string, Command> = {
  'org create': command({
    summary: 'Create an organisation. Prints {"orgId"}.',
    flags: { name: { value: '<name>', required: true } },
    run: async ({ name }, connect) => createOrg(adminDeps(await connect()), { name }),
  }),

  'credential create': command({
    summary: 'Create client credentials. Prints {"clientId","clientSecret","roles"}; the secret is shown only here.',
    flags: { org: { value: '<orgId>', required: true }, roles: { value: ROLES.join('|') + ',…', required: true } },
    run: async (flags, connect) => {
      const org = orgId(flags.org);
      const roles = [...new Set(flags.roles.split(',').map((role) => oneOf('roles', role.trim(), ROLES)))];
      return createCredential(adminDeps(await connect()), { orgId: org, roles });
    },
  }),

  'channel create': command({
    summary:
      'Create a channel. Prints {"channelId"}. --groups-eligible defaults to the --official-business-account value (false).',
    flags: {
      org: { value: '<orgId>', required: true },
      name: { value: '<name>', required: true },
      type: { value: CHANNEL_TYPES.join('|'), required: true },
      phone: { value: '<+E.164>', required: true },
      'official-business-account': { value: 'true|false' },
      'groups-eligible': { value: 'true|false' },
      'phone-number-id': { value: '<id>' },
      'access-token': { value: '<token>' },
    },
    run: async (flags, connect) => {
      const input = {
        orgId: orgId(flags.org),
        name: flags.name,
        type: oneOf('type', flags.type, CHANNEL_TYPES),
        phoneNumber: flags.phone,
        officialBusinessAccount: bool('official-business-account', flags['official-business-account']),
        groupsEligible: bool('groups-eligible', flags['groups-eligible']),
        phoneNumberId: flags['phone-number-id'],
        accessToken: flags['access-token'],
      };
      if (!E164.test(input.phoneNumber)) throw invalid('--phone must be an E.164 number such as +4915112345678');
      const target = await connect();
      // On AWS a channel holds only a Secrets Manager reference to its token (see Channel.accessToken).
      if (target.kind === 'aws' && input.accessToken) throw invalid('--access-token is for the local stack only');
      return createChannel(adminDeps(target), input);
    },
  }),
};
