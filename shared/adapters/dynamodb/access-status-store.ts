import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { AccessStatusStore } from '#shared/domain/auth/access-status';
import type { ConsoleSession } from '#shared/domain/console/model';
import type { ClientCredential, OrgStatus } from '#shared/domain/orgs/model';
import { consoleKeys, keys, withoutKeys } from './keys.ts';

/**
 * The items a token check reads: the credential (CLIENT#), the organisation's status copy (ORGSTATUS#) and, for a
 * console session's token, the session (CONSOLESESSION#): the only partitions IAM lets a verifier read for it (keys.ts LEADING_KEY_PATTERNS.accessStatus).
 */
export class DynamoAccessStatusStore implements AccessStatusStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async getOrgStatus(orgId: string): Promise<OrgStatus | undefined> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: keys.orgStatus(orgId) }));
    return Item?.status as OrgStatus | undefined;
  }

  async getCredential(clientId: string): Promise<ClientCredential | undefined> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: keys.credential(clientId) }));
    return Item ? withoutKeys<ClientCredential>(Item) : undefined;
  }

  async getConsoleSession(sessionId: string): Promise<ConsoleSession | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: consoleKeys.session(sessionId) }),
    );
    return Item ? withoutKeys<ConsoleSession>(Item) : undefined;
  }
}
