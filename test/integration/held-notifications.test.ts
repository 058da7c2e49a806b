import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoChatStore } from '#shared/adapters/dynamodb/chat-store';
import { DynamoGroupRequestStore } from '#shared/adapters/dynamodb/group-request-store';
import { chatKeys, groupKeys } from '#shared/adapters/dynamodb/keys';
import { DynamoOrgAdminStore } from '#shared/adapters/dynamodb/org-admin-store';
import { useDynamo } from '#test/support/dynamo';

const A = '0b4c9a52-6d1e-4f7a-9c3b-2e8d5f1a7c60';
const B = '7f3e2d1c-0b9a-4887-a665-544332211000';
const NOW = new Date();
const inAWeek = Math.floor(NOW.getTime() / 1000) + 7 * 24 * 3600;

describe("Meta's held notifications in their organisation's partition (CONTRACT §25)", () => {
  const table = useDynamo();
  const chats = () => new DynamoChatStore(table.db, table.tableName);
  const groups = () => new DynamoGroupRequestStore(table.db, table.tableName);
  const partition = async (PK: string) =>
    (
      await table.db.send(
        new QueryCommand({
          TableName: table.tableName,
          KeyConditionExpression: 'PK = :pk',
          ExpressionAttributeValues: { ':pk': PK },
        }),
      )
    ).Items ?? [];

  it("keeps a status under ORG#<org>#HELD, read back by that organisation only, never under the wamid's link", async () => {
    await chats().holdStatus(A, 'wamid.1', 'delivered', { id: 'wamid.1', status: 'delivered' }, NOW);
    await chats().holdStatus(A, 'wamid.1', 'read', { id: 'wamid.1', status: 'read' }, NOW);
    await chats().holdStatus(A, 'wamid.10', 'read', { id: 'wamid.10', status: 'read' }, NOW);

    expect(await chats().heldStatuses(A, 'wamid.1')).toEqual([
      { id: 'wamid.1', status: 'delivered' },
      { id: 'wamid.1', status: 'read' },
    ]);
    expect(await chats().heldStatuses(B, 'wamid.1')).toEqual([]);
    expect((await partition(`ORG#${A}#HELD`)).map((item) => item.SK)).toEqual([
      'WAMSG#wamid.1#delivered',
      'WAMSG#wamid.1#read',
      'WAMSG#wamid.10#read',
    ]);
    expect(await partition(chatKeys.networkMessage('wamid.1').PK)).toEqual([]);
  });

  it('keeps a confirmation under ORG#<org>#HELD, read back by that organisation only', async () => {
    await groups().holdConfirmation(A, 'req-1', { group: { group_id: 'G1' } }, NOW);

    expect(await groups().heldConfirmation(A, 'req-1')).toEqual({ group: { group_id: 'G1' } });
    expect(await groups().heldConfirmation(B, 'req-1')).toBeUndefined();
    expect(await partition(groupKeys.networkRequest('req-1').PK)).toEqual([]);
  });

  it('still reads what was held under the global links before the change, until its TTL', async () => {
    const legacy = (Item: Record<string, unknown>) =>
      table.db.send(new PutCommand({ TableName: table.tableName, Item }));
    await legacy({
      PK: chatKeys.networkMessage('wamid.2').PK,
      SK: `${chatKeys.legacyHeldStatusPrefix}sent`,
      notification: { id: 'wamid.2', status: 'sent' },
      ttl: inAWeek,
    });
    await legacy({
      PK: chatKeys.networkMessage('wamid.2').PK,
      SK: `${chatKeys.legacyHeldStatusPrefix}failed`,
      notification: { id: 'wamid.2', status: 'failed' },
      ttl: Math.floor(NOW.getTime() / 1000) - 60,
    });
    await chats().holdStatus(A, 'wamid.2', 'read', { id: 'wamid.2', status: 'read' }, NOW);
    await legacy({
      ...groupKeys.legacyHeldConfirmation('req-2'),
      notification: { group: { group_id: 'G2' } },
      ttl: inAWeek,
    });
    await groups().linkNetworkRequest({ networkRequestId: 'req-2', orgId: A, requestId: 'grq_2', phoneNumberId: '1' });

    expect(await chats().heldStatuses(A, 'wamid.2')).toEqual([
      { id: 'wamid.2', status: 'read' },
      { id: 'wamid.2', status: 'sent' },
    ]);
    expect(await groups().heldConfirmation(A, 'req-2')).toEqual({ group: { group_id: 'G2' } });
    // A legacy confirmation is another organisation's when its request's link names that organisation.
    expect(await groups().heldConfirmation(B, 'req-2')).toBeUndefined();
  });

  it("erases the organisation's held notifications with it (as network links)", async () => {
    await chats().holdStatus(B, 'wamid.3', 'read', { id: 'wamid.3', status: 'read' }, NOW);
    const found: { kind: string }[] = [];

    await new DynamoOrgAdminStore(table.db, table.tableName).findItems(B, async (items) => {
      found.push(...items);
    });

    expect(found).toContainEqual(
      expect.objectContaining({ key: { PK: `ORG#${B}#HELD`, SK: 'WAMSG#wamid.3#read' }, kind: 'networkLinks' }),
    );
  });
});
