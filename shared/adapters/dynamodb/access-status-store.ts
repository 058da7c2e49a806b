import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { AccessStatusStore } from '#shared/domain/auth/access-status';
import type { ConsoleSession } from '#shared/domain/console/model';
import type { ClientCredential, Organisation, OrgStatusCopy } from '#shared/domain/orgs/model';
import { consoleKeys, keys, withoutKeys } from './keys.ts';

/**
 * The items a token check reads: the credential (CLIENT#), the organisation's status copy (ORGSTATUS#) and, for a
 * console session's token, the session (ORGCONSOLE#): the only partitions IAM lets a verifier read for it
 * (keys.ts LEADING_KEY_PATTERNS.accessStatus); and, for a worker only, the organisation item when there is no status
 * copy.
 */
export class DynamoAccessStatusStore implements AccessStatusStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async getOrgStatus(orgId: string): Promise<OrgStatusCopy | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.orgStatus(orgId), ConsistentRead: true }),
    );
    return Item?.status as OrgStatusCopy | undefined;
  }

  async getCredential(clientId: string, options: { consistent?: boolean } = {}) {
    const { Item } = await this.db.send(
      new GetCommand({
        TableName: this.tableName,
        Key: keys.credential(clientId),
        ...(options.consistent ? { ConsistentRead: true } : {}),
      }),
    );
    return Item ? withoutKeys<ClientCredential>(Item) : undefined;
  }

  async getOrgRecord(orgId: string): Promise<Pick<Organisation, 'status' | 'deletingAt'> | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({
        TableName: this.tableName,
        Key: keys.org(orgId),
        ConsistentRead: true,
        ProjectionExpression: '#status, deletingAt, orgId',
        ExpressionAttributeNames: { '#status': 'status' },
      }),
    );
    if (!Item) return undefined;
    const { status, deletingAt } = Item as Pick<Organisation, 'status' | 'deletingAt'>;
    return { ...(status ? { status } : {}), ...(deletingAt ? { deletingAt } : {}) };
  }

  async getConsoleSession(orgId: string, sessionId: string): Promise<ConsoleSession | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: consoleKeys.session(orgId, sessionId), ConsistentRead: true }),
    );
    return Item ? withoutKeys<ConsoleSession>(Item) : undefined;
  }
}
