import {
  BatchGetCommand,
  BatchWriteCommand,
  type DynamoDBDocumentClient,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { TimeBound } from '#shared/domain/reports/filters';
import {
  type ChatRecord,
  type ContactRecord,
  type CrmRecord,
  type RecordOf,
  type ReportType,
  recordId,
  recordTime,
} from '#shared/domain/reports/records';
import type { CrmStore } from '#shared/ports/crm-store';
import { crmKeys, withoutKeys } from './keys.ts';

const WRITE_BATCH = 25;
const READ_BATCH = 100;
const MAX_BATCH_RETRIES = 8;
const EDGE_CONCURRENCY = 8;
/**
 * Sorts after every character of an id: the inclusive upper end of a time's keys. DynamoDB compares UTF-8 bytes,
 * so this must be the highest code point (F4 8F BF BF), not U+FFFF, which sorts below characters beyond the BMP.
 */
const HIGHEST = '\u{10ffff}';

/**
 * Free-form object fields are stored as JSON text: DynamoDB maps can't hold every JSON object (a `__proto__` key,
 * numbers beyond 2^53), and reports only ever read them whole.
 */
const OBJECT_FIELDS: Partial<Record<ReportType, string>> = {
  CONTACT: 'customFields',
  GOAL: 'trackerValues',
  SURVEY_RESPONSES: 'answers',
  FLOW_RESPONSES: 'response',
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `work` over `items` with at most `limit` in flight. */
async function eachLimited<T>(items: T[], limit: number, work: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

export class DynamoCrmStore implements CrmStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async putRecords(orgId: string, input: CrmRecord[], onProgress?: (written: number) => void): Promise<void> {
    // A batch may not name one key twice: the last occurrence of an id wins, as a later import line would.
    const byKey = new Map(
      input.map((record) => [`${record.recordType}#${recordId(record.recordType, record as never)}`, record]),
    );
    const records = [...byKey.values()];
    const chats = records.filter(
      (record): record is CrmRecord & { recordType: 'CHAT' } => record.recordType === 'CHAT',
    );
    const previous = new Map(
      (
        await this.getChats(
          orgId,
          chats.map((chat) => chat.chatId),
        )
      ).map((chat) => [chat.chatId, chat]),
    );
    let written = 0;
    for (let start = 0; start < records.length; start += WRITE_BATCH) {
      const batch = records.slice(start, start + WRITE_BATCH).map((record) => {
        const { recordType, ...fields } = record;
        const id = recordId(recordType, fields as never);
        const objectField = OBJECT_FIELDS[recordType];
        const stored: Record<string, unknown> = objectField
          ? { ...fields, [objectField]: JSON.stringify((fields as Record<string, unknown>)[objectField]) }
          : fields;
        return {
          PutRequest: {
            Item: {
              ...crmKeys.record(orgId, recordType, id),
              ...crmKeys.timeIndex(orgId, recordType, recordTime(recordType, fields as never), id),
              entity: 'CRM',
              recordType,
              ...(recordType === 'CHAT' ? { orgId } : {}),
              ...stored,
            },
          },
        };
      });
      await this.#writeBatch(batch);
      written += batch.length;
      onProgress?.(Math.round((written / records.length) * input.length));
    }
    await this.#updateContactEdges(orgId, chats, previous);
  }

  async *pages<T extends ReportType>(
    orgId: string,
    type: T,
    range: { lower?: TimeBound; upper?: TimeBound },
    pageSize: number,
  ): AsyncGenerator<RecordOf<T>[]> {
    const low = range.lower ? `${range.lower.at}#${range.lower.inclusive ? '' : HIGHEST}` : ' ';
    const high = range.upper ? `${range.upper.at}#${range.upper.inclusive ? HIGHEST : ''}` : HIGHEST;
    if (low > high) return;
    let startKey: Record<string, unknown> | undefined;
    do {
      const result = await this.db.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: 'GSI2',
          KeyConditionExpression: 'GSI2PK = :pk AND GSI2SK BETWEEN :low AND :high',
          // Only the organisation's own records: IAM checks the partition key an item is written under, never the
          // index keys it carries (CONTRACT §25), and a record's time-index partition is its own partition key.
          FilterExpression: 'PK = :pk',
          ExpressionAttributeValues: { ':pk': crmKeys.timeIndexPartition(orgId, type), ':low': low, ':high': high },
          ScanIndexForward: false,
          Limit: pageSize,
          ExclusiveStartKey: startKey,
        }),
      );
      startKey = result.LastEvaluatedKey;
      const items = (result.Items ?? []).map((item) => this.#toRecord<T>(item));
      if (items.length > 0) yield items;
    } while (startKey);
  }

  async getChats(orgId: string, chatIds: string[]): Promise<ChatRecord[]> {
    return this.#batchGet(
      chatIds.map((id) => crmKeys.record(orgId, 'CHAT', id)),
      (item) => this.#toRecord<'CHAT'>(item),
    );
  }

  async getContacts(orgId: string, contactIds: string[]): Promise<ContactRecord[]> {
    return this.#batchGet(
      contactIds.map((id) => crmKeys.record(orgId, 'CONTACT', id)),
      (item) => this.#toRecord<'CONTACT'>(item),
    );
  }

  async chatIdsOfContacts(orgId: string, contactIds: string[]): Promise<Map<string, string[]>> {
    const edges = await this.#batchGet(
      contactIds.map((id) => crmKeys.contactChats(orgId, id)),
      (item) => ({
        contactId: String(item.contactId),
        chatIds: [...((item.chatIds as Set<string> | undefined) ?? [])],
      }),
    );
    return new Map(edges.map((edge) => [edge.contactId, edge.chatIds]));
  }

  /** One update per contact per import: the chats that gained it are added, those that lost it removed. */
  async #updateContactEdges(
    orgId: string,
    chats: (CrmRecord & { recordType: 'CHAT' })[],
    previous: Map<string, ChatRecord>,
  ) {
    const added = new Map<string, Set<string>>();
    const removed = new Map<string, Set<string>>();
    const note = (map: Map<string, Set<string>>, contactId: string, chatId: string) =>
      map.set(contactId, (map.get(contactId) ?? new Set()).add(chatId));
    for (const chat of chats) {
      const now = new Set(chat.contactIds);
      for (const contactId of now) note(added, contactId, chat.chatId);
      for (const contactId of previous.get(chat.chatId)?.contactIds ?? []) {
        if (!now.has(contactId)) note(removed, contactId, chat.chatId);
      }
    }
    const updates = [
      ...[...added].map(([contactId, chatIds]) => ({ contactId, chatIds, action: 'ADD' as const })),
      ...[...removed].map(([contactId, chatIds]) => ({ contactId, chatIds, action: 'DELETE' as const })),
    ];
    await eachLimited(updates, EDGE_CONCURRENCY, async ({ contactId, chatIds, action }) => {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: crmKeys.contactChats(orgId, contactId),
          UpdateExpression: `SET contactId = :contactId, entity = :entity ${action} chatIds :chatIds`,
          ExpressionAttributeValues: {
            ':contactId': contactId,
            ':entity': 'CONTACT_CHATS',
            ':chatIds': new Set(chatIds),
          },
        }),
      );
    });
  }

  async #writeBatch(requests: Record<string, unknown>[]) {
    let pending = requests;
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > MAX_BATCH_RETRIES) throw new Error(`${pending.length} items stayed unprocessed`);
      if (attempt > 0) await sleep(Math.min(2_000, 50 * 2 ** attempt) * (0.5 + Math.random()));
      const result = await this.db.send(new BatchWriteCommand({ RequestItems: { [this.tableName]: pending } }));
      pending = (result.UnprocessedItems?.[this.tableName] ?? []) as Record<string, unknown>[];
    }
  }

  async #batchGet<R>(keys: Record<string, string>[], toValue: (item: Record<string, unknown>) => R): Promise<R[]> {
    const unique = [...new Map(keys.map((key) => [`${key.PK}|${key.SK}`, key])).values()];
    const found: R[] = [];
    for (let start = 0; start < unique.length; start += READ_BATCH) {
      let pending: Record<string, unknown>[] = unique.slice(start, start + READ_BATCH);
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt > MAX_BATCH_RETRIES) throw new Error(`${pending.length} keys stayed unprocessed`);
        if (attempt > 0) await sleep(Math.min(2_000, 50 * 2 ** attempt) * (0.5 + Math.random()));
        const result = await this.db.send(
          new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: pending } } }),
        );
        found.push(...(result.Responses?.[this.tableName] ?? []).map(toValue));
        pending = (result.UnprocessedKeys?.[this.tableName]?.Keys ?? []) as Record<string, unknown>[];
      }
    }
    return found;
  }

  #toRecord<T extends ReportType>(item: Record<string, unknown>): RecordOf<T> {
    const { recordType, version, orgId, ...fields } = withoutKeys<Record<string, unknown>>(item);
    const objectField = OBJECT_FIELDS[recordType as ReportType];
    if (objectField && typeof fields[objectField] === 'string')
      fields[objectField] = JSON.parse(fields[objectField] as string);
    return fields as unknown as RecordOf<T>;
  }
}
