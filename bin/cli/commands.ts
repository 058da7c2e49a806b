import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { access } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { DynamoCrmStore } from '#shared/adapters/dynamodb/crm-store';
import { DynamoIdentityStore } from '#shared/adapters/dynamodb/identity-store';
import { ROLES } from '#shared/domain/auth/roles';
import { generateRecords } from '#shared/domain/crm/generate-records';
import { importRecords } from '#shared/domain/crm/import-records';
import { createChannel, createCredential, createOrg } from '#shared/domain/orgs/administer';
import {
  CHANNEL_TYPES,
  DEFAULT_INVITE_TEMPLATE,
  type InviteTemplate,
  TEMPLATE_LANGUAGE,
  TEMPLATE_NAME,
} from '#shared/domain/orgs/model';
import type { CrmRecord } from '#shared/domain/reports/records';
import { systemClock } from '#shared/ports/clock';
import { ulidIds } from '#shared/ports/ids';
import { ADMIN_COMMANDS } from './admin.ts';
import { type Command, command } from './command.ts';
import { CliError, invalid } from './errors.ts';
import type { Target } from './target.ts';

const ORG_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const E164 = /^\+[1-9]\d{6,14}$/;

function orgId(value: string): string {
  if (!ORG_ID.test(value)) throw invalid('--org must be an organisation id (a lowercase UUID)');
  return value;
}

/**
 * `--invite-template` / `--invite-template-language` (CONTRACT §16): the name and language of the business's copy of
 * Meta's group invite-link template; either may be left out for its default, both for the channel to keep none.
 */
function inviteTemplate(name: string | undefined, language: string | undefined): InviteTemplate | undefined {
  if (name === undefined && language === undefined) return undefined;
  if (name !== undefined && !TEMPLATE_NAME.test(name)) {
    throw invalid('--invite-template must be a template name: lowercase letters, digits and underscores');
  }
  if (language !== undefined && !TEMPLATE_LANGUAGE.test(language)) {
    throw invalid('--invite-template-language must be a template language code such as en_US, de or pt_BR');
  }
  return { name: name ?? DEFAULT_INVITE_TEMPLATE.name, language: language ?? DEFAULT_INVITE_TEMPLATE.language };
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

function positiveInt(flag: string, value: string | undefined, fallback?: number): number {
  if (value === undefined && fallback !== undefined) return fallback;
  if (!value || !/^\d{1,9}$/.test(value) || Number(value) < 1) throw invalid(`--${flag} must be a positive integer`);
  return Number(value);
}

async function requireOrg(target: Target, org: string) {
  const found = await adminDeps(target).identity.getOrg(org);
  if (!found) throw invalid(`organisation ${org} does not exist`);
  if (found.deletingAt) throw invalid(`organisation ${org} is being deleted`);
}

const readLines = (file: string) => () =>
  createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY });

/** Progress on stderr for large files: every 10,000 records. */
const progress = (io: { err(line: string): void }, verb: string) => {
  let reported = 0;
  return (written: number) => {
    if (written - reported < 10_000) return;
    reported = written;
    io.err(JSON.stringify({ progress: { [verb]: written } }));
  };
};

/** Every command, by `<noun> <verb>`. */
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
      'access-token-secret-id': { value: '<Secrets Manager id>' },
      'invite-template': { value: '<template name> (default group_invite_link)' },
      'invite-template-language': { value: '<language code> (default en_US)' },
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
        accessTokenSecretId: flags['access-token-secret-id'],
        inviteTemplate: inviteTemplate(flags['invite-template'], flags['invite-template-language']),
      };
      if (!E164.test(input.phoneNumber)) throw invalid('--phone must be an E.164 number such as +4915112345678');
      const target = await connect();
      // On AWS a channel holds only a Secrets Manager reference to its token (see Channel.accessToken).
      if (target.kind === 'aws' && input.accessToken) throw invalid('--access-token is for the local stack only');
      return createChannel(adminDeps(target), input);
    },
  }),

  'data import': command({
    summary:
      'Import CRM records from a JSONL file (one record per line with "recordType"). Every line is checked first; any bad line → each error as {"line","pointer","message"} on stderr, exit 1, nothing written. Prints {"imported","byType"}.',
    flags: { org: { value: '<orgId>', required: true }, file: { value: '<path.jsonl>', required: true } },
    run: async (flags, connect, io) => {
      const org = orgId(flags.org);
      try {
        await access(flags.file);
      } catch {
        throw invalid(`--file ${flags.file} cannot be read`);
      }
      const target = await connect();
      await requireOrg(target, org);
      const result = await importRecords(
        { crm: new DynamoCrmStore(target.db, target.tableName) },
        { orgId: org, lines: readLines(flags.file), onProgress: progress(io, 'imported') },
      );
      if (!result.ok)
        throw new CliError('VALIDATION_FAILED', `${result.errors.length} invalid lines`, 1, result.errors);
      return { imported: result.imported, byType: result.byType };
    },
  }),

  'data generate': command({
    summary:
      'Generate realistic CRM data for an organisation: --scale chats and contacts plus linked tickets, calls, goals, bookings, follow-ups and responses; the same --seed gives the same data. With --out, writes JSONL there instead. Prints {"generated","byType"}.',
    flags: {
      org: { value: '<orgId>', required: true },
      scale: { value: '<n>', required: true },
      seed: { value: '<n>' },
      out: { value: '<path.jsonl>' },
    },
    run: async (flags, connect, io) => {
      const org = orgId(flags.org);
      const scale = positiveInt('scale', flags.scale);
      const seed = positiveInt('seed', flags.seed, 1);
      const byType: Record<string, number> = {};
      let generated = 0;
      const count = (record: CrmRecord) => {
        byType[record.recordType] = (byType[record.recordType] ?? 0) + 1;
        generated += 1;
      };
      if (flags.out) {
        const out = createWriteStream(flags.out);
        for (const record of generateRecords({ scale, seed })) {
          count(record);
          if (!out.write(`${JSON.stringify(record)}\n`)) await once(out, 'drain');
        }
        await new Promise<void>((resolve, reject) =>
          out.end((error?: Error | null) => (error ? reject(error) : resolve())),
        );
        return { generated, byType, file: flags.out };
      }
      const target = await connect();
      await requireOrg(target, org);
      const crm = new DynamoCrmStore(target.db, target.tableName);
      const report = progress(io, 'generated');
      let chunk: CrmRecord[] = [];
      for (const record of generateRecords({ scale, seed })) {
        count(record);
        chunk.push(record);
        if (chunk.length === 500) {
          await crm.putRecords(org, chunk);
          chunk = [];
          report(generated);
        }
      }
      if (chunk.length) await crm.putRecords(org, chunk);
      return { generated, byType };
    },
  }),
  ...ADMIN_COMMANDS,
};
