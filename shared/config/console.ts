import { DynamoConsoleOverview } from '#shared/adapters/dynamodb/console-overview';
import { DynamoConsoleStore } from '#shared/adapters/dynamodb/console-store';
import type { readOverview } from '#shared/domain/console/overview';
import type { CreateLinkDeps, SessionDeps } from '#shared/domain/console/sessions';
import { accessStatusStore } from './access.ts';
import { clock, config, ids } from './core.ts';
import { documentClient } from './dynamodb.ts';
import { type DepsOf, instance, lazyDeps } from './instances.ts';
import { signingKeyStore } from './keys.ts';

export function consoleStore(): DynamoConsoleStore {
  return instance(consoleStore, () => new DynamoConsoleStore(documentClient(), config().aws.tableName));
}

export function createLinkDeps(): CreateLinkDeps {
  return instance(createLinkDeps, () => lazyDeps({ store: consoleStore, clock }));
}

/** The public session routes: links and sessions, the statuses that decide, and the keys that sign. */
export function consoleSessionDeps(): SessionDeps {
  return instance(consoleSessionDeps, () =>
    lazyDeps({ store: consoleStore, access: accessStatusStore, keys: signingKeyStore, config, clock, ids }),
  );
}

function overviewSource(): DynamoConsoleOverview {
  return instance(overviewSource, () => new DynamoConsoleOverview(documentClient(), config().aws.tableName));
}

/** Signing out reads and ends the session: no keys, no statuses. */
export function endSessionDeps(): Pick<SessionDeps, 'store' | 'clock'> {
  return instance(endSessionDeps, () => lazyDeps({ store: consoleStore, clock }));
}

export function overviewDeps(): DepsOf<typeof readOverview> {
  return instance(overviewDeps, () => lazyDeps({ clock, source: overviewSource }));
}
