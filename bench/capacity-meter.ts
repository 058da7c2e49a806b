import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { type CapacityMeterHook, meterCapacity } from '#shared/adapters/dynamodb/client';
import { TABLE_INDEXES, TABLE_KEYS } from '#shared/adapters/dynamodb/table';

/** What one kind of operation consumed, in DynamoDB capacity units. */
export interface OperationCapacity {
  calls: number;
  readUnits: number;
  /** Table writes, failed conditional writes included (DynamoDB charges them too). */
  writeUnits: number;
  /** Writes to the global secondary indexes caused by the table writes. */
  indexWriteUnits: number;
  conditionalFailures: number;
}

type Item = Record<string, unknown>;

const KB = 1024;
/** An index entry is its projected attributes (ALL here) plus 100 bytes of overhead (DynamoDB developer guide). */
const INDEX_ENTRY_OVERHEAD = 100;

/** DynamoDB's documented item size: attribute names plus values (UTF-8 strings, ~1 byte per 2 digits, …). */
export function itemSize(item: Item): number {
  let size = 0;
  for (const [name, value] of Object.entries(item)) size += Buffer.byteLength(name) + valueSize(value);
  return size;
}

function valueSize(value: unknown): number {
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number' || typeof value === 'bigint') {
    const digits = String(value)
      .replace(/[-.]|e.*$/gi, '')
      .replace(/^0+/, '').length;
    return Math.ceil(Math.max(digits, 1) / 2) + 1;
  }
  if (value instanceof Uint8Array) return value.length;
  if (value instanceof Set) return [...value].reduce((sum: number, element) => sum + valueSize(element), 0);
  if (Array.isArray(value)) return 3 + value.reduce((sum: number, element) => sum + 1 + valueSize(element), 0);
  if (typeof value === 'object') {
    const entries = Object.entries(value as Item);
    return 3 + entries.reduce((sum, [name, element]) => sum + 1 + Buffer.byteLength(name) + valueSize(element), 0);
  }
  return 0;
}

const writeUnits = (size: number) => Math.max(1, Math.ceil(size / KB));

/** Index write units of a table write that turned `before` into `after` (either may be absent). */
export function indexWriteUnits(
  before: Item | undefined,
  after: Item | undefined,
  indexes: readonly (typeof TABLE_INDEXES)[number][] = TABLE_INDEXES,
): number {
  let units = 0;
  for (const index of indexes) {
    const inIndex = (item: Item | undefined) =>
      item !== undefined && item[index.partitionKey] !== undefined && item[index.sortKey] !== undefined;
    const entry = (item: Item) => itemSize(item) + INDEX_ENTRY_OVERHEAD;
    const was = inIndex(before);
    const is = inIndex(after);
    if (was && is) {
      const moved =
        before![index.partitionKey] !== after![index.partitionKey] || before![index.sortKey] !== after![index.sortKey];
      if (moved) units += writeUnits(entry(before!)) + writeUnits(entry(after!));
      else if (JSON.stringify(before) !== JSON.stringify(after))
        units += writeUnits(Math.max(entry(before!), entry(after!)));
    } else if (was) units += writeUnits(entry(before!));
    else if (is) units += writeUnits(entry(after!));
  }
  return units;
}

type Input = Item & { TableName?: string; Key?: Item; Item?: Item; RequestItems?: Record<string, unknown[]> };
type Output = { output?: { ConsumedCapacity?: { CapacityUnits?: number } | { CapacityUnits?: number }[] } };

/**
 * Counts DynamoDB capacity per operation while installed (see meterCapacity in the document client).
 * Reads are what DynamoDB reports with `ReturnConsumedCapacity: 'TOTAL'`; dynalite reports them per the documented
 * rules (4 KB units, half for eventually consistent reads, a query's item sizes summed before rounding). For writes
 * dynalite reports the table only, so the meter reads the item before and after each single-item write (with its own
 * client, not metered) and applies the rules itself: 1 KB units of the larger image, failed conditional writes at the
 * existing item's size, and each index entry added, changed or removed (ALL projection, +100 bytes).
 */
export class CapacityMeter implements CapacityMeterHook {
  readonly operations = new Map<string, OperationCapacity>();
  /**
   * Write units per partition: `table <PK>`, and `<index> <partition key>` for the index entries a write added,
   * changed or removed (docs/SCALE.md: which partitions a workload heats).
   */
  readonly partitionWrites = new Map<string, number>();
  readonly #reader: DynamoDBDocumentClient;

  /**
   * @param label which function an operation belongs to (e.g. the local stack's running handler); operations are
   *   keyed `label:operation`.
   */
  constructor(
    connection: { region: string; endpoint: string; credentials: { accessKeyId: string; secretAccessKey: string } },
    private readonly label: () => string | undefined = () => undefined,
  ) {
    this.#reader = DynamoDBDocumentClient.from(new DynamoDBClient(connection));
  }

  install(): this {
    meterCapacity(this);
    return this;
  }

  uninstall(): void {
    meterCapacity(undefined);
  }

  reset(): void {
    this.operations.clear();
  }

  async measure<T>(operation: string, args: { input: object }, next: (args: { input: object }) => Promise<T>) {
    const name = operation.replace(/Command$/, '');
    const entry = this.#entry(name);
    entry.calls += 1;
    const input = args.input as Input;
    const metered = { ...args, input: { ...input, ReturnConsumedCapacity: 'TOTAL' } };
    const key = input.Key ?? (input.Item ? tableKey(input.Item) : undefined);
    const single = ['PutItem', 'UpdateItem', 'DeleteItem'].includes(name) && key && input.TableName;
    if (!single) {
      const result = await next(metered);
      const consumed = [(result as Output).output?.ConsumedCapacity ?? []].flat();
      const units = consumed.reduce((sum, capacity) => sum + (capacity.CapacityUnits ?? 0), 0);
      if (name === 'BatchWriteItem') {
        const puts = Object.values(input.RequestItems ?? {})
          .flat()
          .map((request) => (request as { PutRequest?: { Item: Item } }).PutRequest?.Item)
          .filter((item): item is Item => item !== undefined);
        entry.writeUnits += units;
        entry.indexWriteUnits += puts.reduce((sum, item) => sum + indexWriteUnits(undefined, item), 0);
        for (const item of puts) this.#tallyPartitions(undefined, item);
      } else entry.readUnits += units;
      return result;
    }
    const read = async () =>
      (await this.#reader.send(new GetCommand({ TableName: input.TableName, Key: key, ConsistentRead: true }))).Item;
    const before = await read();
    try {
      const result = await next(metered);
      const after = name === 'DeleteItem' ? undefined : await read();
      entry.writeUnits += writeUnits(Math.max(before ? itemSize(before) : 0, after ? itemSize(after) : 0));
      entry.indexWriteUnits += indexWriteUnits(before, after);
      this.#tallyPartitions(before, after, key);
      return result;
    } catch (error) {
      if ((error as Error).name === 'ConditionalCheckFailedException') {
        entry.conditionalFailures += 1;
        entry.writeUnits += writeUnits(before ? itemSize(before) : 0);
      }
      throw error;
    }
  }

  #tallyPartitions(before: Item | undefined, after: Item | undefined, key: Item | undefined = after): void {
    const add = (partition: string, units: number) =>
      this.partitionWrites.set(partition, (this.partitionWrites.get(partition) ?? 0) + units);
    const image = after ?? before;
    const partition = key?.[TABLE_KEYS.partitionKey];
    if (partition !== undefined) add(`table ${String(partition)}`, writeUnits(image ? itemSize(image) : 0));
    for (const index of TABLE_INDEXES) {
      const keys = new Set([before?.[index.partitionKey], after?.[index.partitionKey]].filter((v) => v !== undefined));
      for (const indexPartition of keys) {
        const only = (item: Item | undefined) => (item?.[index.partitionKey] === indexPartition ? item : undefined);
        add(`${index.indexName} ${String(indexPartition)}`, indexWriteUnits(only(before), only(after), [index]));
      }
    }
  }

  #entry(operation: string): OperationCapacity {
    const key = `${this.label() ?? '-'}:${operation}`;
    let entry = this.operations.get(key);
    if (!entry) {
      entry = { calls: 0, readUnits: 0, writeUnits: 0, indexWriteUnits: 0, conditionalFailures: 0 };
      this.operations.set(key, entry);
    }
    return entry;
  }
}

const tableKey = (item: Item) => ({
  [TABLE_KEYS.partitionKey]: item[TABLE_KEYS.partitionKey],
  [TABLE_KEYS.sortKey]: item[TABLE_KEYS.sortKey],
});
