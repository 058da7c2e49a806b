import { createHash } from 'node:crypto';
import * as v from 'valibot';
import {
  GroupEvent,
  InboundMessage,
  type NetworkErrors,
  type NetworkParticipant,
  StatusNotification,
} from '#shared/schemas/network';

export type { GroupEvent, InboundMessage, NetworkErrors, NetworkParticipant, StatusNotification };

/**
 * Meta's webhook notifications, read item by item (CONTRACT §16). Meta's samples, reference pages and OpenAPI
 * description disagree on names, placements and types, so every published variant is read and brought to one shape
 * here, before the schemas (shared/schemas/network.ts) see it; an item that still cannot be read is reported as
 * unreadable (the caller skips it), and never fails the batch.
 */

/** The `alert` of the log line an unreadable item writes; the stack's alarm counts these lines. */
export const NETWORK_NOTIFICATION_UNREADABLE = 'NETWORK_NOTIFICATION_UNREADABLE';

/**
 * How a field is read, by its name wherever it appears in an item: the one table of the reader's tolerance of types.
 * - `id`: a JSON string or a JSON number, meaning the same (Meta's OpenAPI examples write phone numbers as numbers);
 *   read as text.
 * - `time`: Unix seconds, a number or a numeric string; read as a number.
 * - `number`: a number or a numeric string (`131215` and `"131215"`); read as a number.
 * - `flag`: a boolean or `"true"` / `"false"`.
 * Every other field is left as it came, and `null` anywhere is the field's absence.
 */
const READINGS: Record<string, 'id' | 'time' | 'number' | 'flag'> = {
  id: 'id',
  wa_id: 'id',
  input: 'id',
  user_id: 'id',
  parent_user_id: 'id',
  username: 'id',
  recipient_id: 'id',
  recipient_user_id: 'id',
  recipient_participant_id: 'id',
  participant_recipient_id: 'id',
  recipient_participant_user_id: 'id',
  from: 'id',
  from_user_id: 'id',
  from_parent_user_id: 'id',
  group_id: 'id',
  request_id: 'id',
  join_request_id: 'id',
  phone_number_id: 'id',
  display_phone_number: 'id',
  timestamp: 'time',
  time: 'time',
  code: 'number',
  update_successful: 'flag',
};

/** The type names of Meta's OpenAPI description, as the webhook reference spells them. */
const GROUP_TYPE_SPELLINGS: Record<string, string> = {
  group_add_participants: 'group_participants_add',
  group_remove_participants: 'group_participants_remove',
};

/** The field names of Meta's OpenAPI description, as the webhook reference spells them. */
const FIELD_SPELLINGS: Record<string, string> = {
  group_participant_update: 'group_participants_update',
};

const NUMERIC = /^\s*-?\d+(\.\d+)?\s*$/;

function read(value: unknown, reading: (typeof READINGS)[string] | undefined): unknown {
  switch (reading) {
    case 'id':
      return typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
    case 'time':
    case 'number':
      return typeof value === 'string' && NUMERIC.test(value) ? Number(value) : value;
    case 'flag':
      return value === 'true' ? true : value === 'false' ? false : value;
    default:
      return normalised(value);
  }
}

/** An item with every field read as READINGS says, at any depth; `null` fields dropped. */
function normalised(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(normalised);
  if (!isObject(node)) return node;
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (value !== null) result[key] = read(value, READINGS[key]);
  }
  return result;
}

/** One item of a batch, with the field and number it was reported under. */
export type NotificationItem =
  | {
      kind: 'group';
      field: string;
      phoneNumberId: string;
      group: GroupEvent;
      /** The notification's identity, from its content (see `contentKey`). */
      key: string;
    }
  | { kind: 'message'; field: string; phoneNumberId: string; message: InboundMessage }
  | { kind: 'status'; field: string; phoneNumberId: string; status: StatusNotification }
  | { kind: 'other'; field: string; phoneNumberId: string };

/** One group object of a notification, with the business number it was reported for and its identity. */
export interface GroupNotification {
  phoneNumberId: string;
  group: GroupEvent;
  /** The notification's identity, from its content (`contentKey`). */
  key: string;
}

/** What the alert line says about an item it skipped: names and a schema-made reason, never a value. */
export interface UnreadableItem {
  field: string | null;
  type: string | null;
  reason: string;
}

export const GROUP_FIELDS = new Set([
  'group_lifecycle_update',
  'group_participants_update',
  'group_settings_update',
  'group_status_update',
]);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A name from the notification, for a log line: Meta's names are snake_case words; anything else is withheld. */
export const safeName = (value: unknown): string | null =>
  typeof value === 'string' && /^[A-Za-z0-9_.]{1,64}$/.test(value) ? value : null;

/** Where the schema refused the item and what it expected, without the value it received. */
function reasonOf(issues: readonly v.BaseIssue<unknown>[]): string {
  const [issue] = issues;
  if (!issue) return 'unreadable';
  const path = (issue.path ?? []).map((item) => String(item.key)).join('.');
  return `${path || 'item'}: expected ${issue.expected ?? 'a readable value'}`.slice(0, 200);
}

/** Unix seconds of an entry's `time` (Meta's other webhooks write it in milliseconds). */
const secondsOf = (time: unknown) =>
  typeof time === 'number' && Number.isFinite(time) && time > 0 ? (time > 1e11 ? time / 1000 : time) : undefined;

/**
 * Splits a verified notification into its items, each read on its own: every `entry[].changes[]` item, and every
 * object of its `value.groups[]`, `value.messages[]` and `value.statuses[]`.
 * 1. Every field of an item is read as READINGS says (ids as text, times and codes as numbers, `null` absent).
 * 2. An item without `timestamp` is given its entry's `time`, else `receivedAt` (when the webhook received it).
 * 3. `initiated_by` placed beside the group object (on the change's `value`, as in Meta's sample) is read as the
 *    group object's own; the OpenAPI spellings of fields and types are read as the webhook reference's.
 * 4. The item is validated (shared/schemas/network.ts); a group item is given its content's identity.
 */
export function readNotification(
  json: unknown,
  receivedAt: Date = new Date(),
): { items: NotificationItem[]; unreadable: UnreadableItem[] } {
  const items: NotificationItem[] = [];
  const unreadable: UnreadableItem[] = [];
  const entries = isObject(json) ? json.entry : undefined;
  if (!Array.isArray(entries)) {
    unreadable.push({ field: null, type: null, reason: 'entry: expected an array of entries' });
    return { items, unreadable };
  }
  for (const entry of entries) {
    const changes = isObject(entry) ? entry.changes : undefined;
    if (!Array.isArray(changes)) {
      unreadable.push({ field: null, type: null, reason: 'entry.changes: expected an array of changes' });
      continue;
    }
    const time = secondsOf(read((entry as Record<string, unknown>).time, 'time')) ?? receivedAt.getTime() / 1000;
    for (const change of changes) {
      const rawField = isObject(change) && typeof change.field === 'string' ? change.field : undefined;
      const value = isObject(change) ? normalised(change.value) : undefined;
      if (rawField === undefined || !isObject(value)) {
        unreadable.push({
          field: safeName(rawField),
          type: null,
          reason: rawField === undefined ? 'field: expected a string' : 'value: expected an object',
        });
        continue;
      }
      const field = FIELD_SPELLINGS[rawField] ?? rawField;
      const metadata = isObject(value.metadata) ? value.metadata : {};
      const phoneNumberId = typeof metadata.phone_number_id === 'string' ? metadata.phone_number_id : '';
      const list = (key: string) => {
        const found = value[key];
        if (found === undefined) return [];
        if (Array.isArray(found)) return found;
        unreadable.push({ field: safeName(field), type: null, reason: `${key}: expected an array` });
        return [];
      };
      const each = <S extends v.GenericSchema>(
        key: string,
        schema: S,
        add: (item: v.InferOutput<S>) => void,
        beside: Record<string, unknown> = {},
      ) => {
        for (const raw of list(key)) {
          const item = isObject(raw) ? { ...beside, timestamp: time, ...raw } : raw;
          const parsed = v.safeParse(schema, item);
          if (parsed.success) add(parsed.output);
          else {
            const type = isObject(raw) ? safeName(raw.type ?? raw.status) : null;
            unreadable.push({ field: safeName(field), type, reason: reasonOf(parsed.issues) });
          }
        }
      };
      if (GROUP_FIELDS.has(field)) {
        const beside = typeof value.initiated_by === 'string' ? { initiated_by: value.initiated_by } : {};
        each(
          'groups',
          GroupEvent,
          (raw) => {
            const group = { ...raw, type: GROUP_TYPE_SPELLINGS[raw.type] ?? raw.type };
            items.push({ kind: 'group', field, phoneNumberId, group, key: contentKey(field, group) });
          },
          beside,
        );
      } else if (field === 'messages') {
        each('messages', InboundMessage, (message) => items.push({ kind: 'message', field, phoneNumberId, message }));
        each('statuses', StatusNotification, (status) => items.push({ kind: 'status', field, phoneNumberId, status }));
      } else items.push({ kind: 'other', field, phoneNumberId });
    }
  }
  return { items, unreadable };
}

/**
 * A notification's identity from its content (CONTRACT §16): field, type, group, time and the item itself, read as
 * above and canonicalised (keys sorted), hashed. Two different notifications never share it (two answers to one
 * `request_id`, two suspensions without a `timestamp` of their own, whose time is when each was received), and a
 * byte-identical replay of a notification with Meta's own time has the same.
 */
export function contentKey(field: string, group: GroupEvent): string {
  const content = canonical([field, group.type, group.group_id ?? null, group.timestamp ?? null, group]);
  return createHash('sha256').update(content).digest('base64url');
}

/** JSON with every object's keys sorted, so that the same content is always the same text. */
function canonical(node: unknown): string {
  if (Array.isArray(node)) return `[${node.map(canonical).join(',')}]`;
  if (isObject(node)) {
    const keys = Object.keys(node)
      .filter((key) => node[key] !== undefined)
      .sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(node[key])}`).join(',')}}`;
  }
  return JSON.stringify(node) ?? 'null';
}

/** Meta's timestamps are Unix seconds (the reader has made them numbers and filled in missing ones). */
export function notificationTime(timestamp: number | undefined, fallback: Date): Date {
  return timestamp !== undefined && Number.isFinite(timestamp) && timestamp > 0
    ? new Date(Math.round(timestamp * 1000))
    : fallback;
}

/**
 * `join_approval_mode` as a notification writes it, as `requireJoinApproval`: the mode itself (`approval_required` /
 * `auto_approve`), or a setting's result naming it; undefined when absent, unknown or not applied.
 */
export function joinApprovalOf(mode: GroupEvent['join_approval_mode']): boolean | undefined {
  const value =
    typeof mode === 'string' ? mode : mode?.update_successful === false ? undefined : (mode?.mode ?? mode?.text);
  return value === 'approval_required' ? true : value === 'auto_approve' ? false : undefined;
}

/** Meta's first error of an item, as our `{code, message}` (its code kept as Meta's number, written as a string). */
export function firstError(errors: NetworkErrors | undefined, fallback: string) {
  const [first] = errors ?? [];
  return first
    ? { code: String(first.code ?? 'NETWORK_REJECTED'), message: first.message ?? first.title ?? fallback }
    : undefined;
}
