import { DynamoConsoleStore } from '#shared/adapters/dynamodb/console-store';
import { DynamoIdentityStore } from '#shared/adapters/dynamodb/identity-store';
import { DynamoOrgAdminStore } from '#shared/adapters/dynamodb/org-admin-store';
import { createOperatorLink } from '#shared/domain/console/operator-link';
import { consoleAddressOf } from '#shared/http/console';
import { systemClock } from '#shared/ports/clock';
import type { Command } from './command.ts';
import { invalid } from './errors.ts';

const ORG_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** `wpcrm console-link` (CONTRACT §24): a one-time sign-in link to an organisation's console, for operators. */
export const CONSOLE_COMMANDS: Record<string, Command> = {
  'console-link': {
    summary:
      'A one-time sign-in link to an organisation\'s console (10 minutes, one use). Prints {"url","expiresAt"}. ' +
      'The link acts for --client-id, else the oldest active ACCOUNT_OWNER (then CRM_ADMIN) credential; revoking that ' +
      "credential ends the session. --base-url: the API as people reach it (default: the stack's).",
    flags: {
      org: { value: '<orgId>', required: true },
      'read-only': { value: '', boolean: true },
      'client-id': { value: '<clientId>' },
      'session-seconds': { value: '<300–604800> (default 86400)' },
      'base-url': { value: '<https://…/api/wp-crm>' },
    },
    run: async (flags, connect) => {
      const orgId = flags.org ?? '';
      if (!ORG_ID.test(orgId)) throw invalid('--org must be an organisation id (a lowercase UUID)');
      const sessionSeconds = flags['session-seconds'] === undefined ? undefined : Number(flags['session-seconds']);
      if (
        sessionSeconds !== undefined &&
        !(Number.isInteger(sessionSeconds) && sessionSeconds >= 300 && sessionSeconds <= 604_800)
      ) {
        throw invalid('--session-seconds must be an integer from 300 to 604800');
      }
      const target = await connect();
      const base = flags['base-url'] ?? target.apiUrl;
      if (!base) throw invalid('the target does not say where its API is: pass --base-url https://…/api/wp-crm');
      const identity = new DynamoIdentityStore(target.db, target.tableName);
      const admin = new DynamoOrgAdminStore(target.db, target.tableName);
      return createOperatorLink(
        {
          store: new DynamoConsoleStore(target.db, target.tableName),
          clock: systemClock,
          credentials: {
            getCredential: (clientId) => identity.getCredential(clientId),
            listCredentials: (org) => admin.listCredentials(org),
          },
        },
        {
          orgId,
          clientId: flags['client-id'],
          access: flags['read-only'] === undefined ? 'manage' : 'read',
          consoleUrl: consoleAddressOf(base),
          sessionSeconds,
        },
      );
    },
  },
};
