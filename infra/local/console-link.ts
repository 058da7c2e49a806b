import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { DynamoConsoleStore } from '#shared/adapters/dynamodb/console-store';
import { DynamoIdentityStore } from '#shared/adapters/dynamodb/identity-store';
import { DynamoOrgAdminStore } from '#shared/adapters/dynamodb/org-admin-store';
import { createOperatorLink } from '#shared/domain/console/operator-link';
import { consoleAddressOf } from '#shared/http/console';
import { systemClock } from '#shared/ports/clock';
import type { DemoSeed } from './seed.ts';
import type { StackInfo } from './stack-info.ts';

/**
 * A one-time console link for the demo organisation's owner, as `wpcrm console-link` makes it (CONTRACT §24): what
 * `npm start` and `npm run start:cdk` print beside the credentials. It works once, within 10 minutes.
 */
export async function demoConsoleLink(stack: {
  demo: DemoSeed | undefined;
  apiUrl: string;
  info: Pick<StackInfo, 'endpoints' | 'credentials' | 'tableName'>;
}): Promise<string | undefined> {
  if (!stack.demo) return undefined;
  const db = createDocumentClient({
    region: 'local',
    endpoint: stack.info.endpoints.dynamodb,
    credentials: stack.info.credentials,
  });
  try {
    const identity = new DynamoIdentityStore(db, stack.info.tableName);
    const admin = new DynamoOrgAdminStore(db, stack.info.tableName);
    const { url } = await createOperatorLink(
      {
        store: new DynamoConsoleStore(db, stack.info.tableName),
        clock: systemClock,
        credentials: {
          getCredential: (clientId) => identity.getCredential(clientId),
          listCredentials: (orgId) => admin.listCredentials(orgId),
        },
      },
      {
        orgId: stack.demo.orgId,
        clientId: stack.demo.credentials.ACCOUNT_OWNER.clientId,
        access: 'manage',
        consoleUrl: consoleAddressOf(stack.apiUrl),
      },
    );
    return url;
  } finally {
    db.destroy();
  }
}
