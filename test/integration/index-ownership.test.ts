import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoChatStore } from '#shared/adapters/dynamodb/chat-store';
import { DynamoCrmStore } from '#shared/adapters/dynamodb/crm-store';
import { chatKeys, crmKeys } from '#shared/adapters/dynamodb/keys';
import { useDynamo } from '#test/support/dynamo';

const A = '0b4c9a52-6d1e-4f7a-9c3b-2e8d5f1a7c60';
const B = '7f3e2d1c-0b9a-4887-a665-544332211000';

/**
 * IAM's dynamodb:LeadingKeys is the partition key an item is written under, never the index keys it carries: a session
 * of organisation A may write under ORG#A… an item whose index keys are B's (CONTRACT §25). B's index reads keep only
 * B's own items.
 */
describe("an organisation's index partitions list only its own items", () => {
  const table = useDynamo();
  const put = (Item: Record<string, unknown>) => table.db.send(new PutCommand({ TableName: table.tableName, Item }));
  const now = '2026-12-01T10:00:00.000Z';

  it("leaves out of B's records a record written under A's partition with B's time-index keys", async () => {
    await put({
      ...crmKeys.record(B, 'CONTACT', 'c-own'),
      ...crmKeys.timeIndex(B, 'CONTACT', now, 'c-own'),
      id: 'c-own',
    });
    await put({
      ...crmKeys.record(A, 'CONTACT', 'c-planted'),
      ...crmKeys.timeIndex(B, 'CONTACT', now, 'c-planted'),
      id: 'c-planted',
    });
    const ids: string[] = [];

    for await (const page of new DynamoCrmStore(table.db, table.tableName).pages(B, 'CONTACT', {}, 1)) {
      ids.push(...page.map((record) => String((record as { id?: string }).id)));
    }

    expect(ids).toEqual(['c-own']);
  });

  it("leaves out of B's groups a chat written under A's partition with B's group-index keys", async () => {
    const chat = (org: string, chatId: string) => ({
      ...chatKeys.chat(org, chatId),
      ...chatKeys.groupIndex(B, now, chatId),
      chatId,
      orgId: org,
      chatType: 'GROUP',
      name: chatId,
    });
    await put(chat(B, 'cht_own'));
    await put(chat(A, 'cht_planted'));

    const page = await new DynamoChatStore(table.db, table.tableName).listGroups(B, {}, { limit: 10 });

    expect(page.items.map((item) => item.chatId)).toEqual(['cht_own']);
  });
});
