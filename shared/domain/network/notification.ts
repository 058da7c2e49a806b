import * as v from 'valibot';

/**
 * Meta's webhook notifications, read item by item (CONTRACT §16). Meta's samples, reference pages and OpenAPI
 * description disagree on names, placements and types, so every published variant is read and brought to one shape
 * here; an item that still cannot be read is reported as unreadable (the caller skips it), and never fails the batch.
 */

/** The `alert` of the log line an unreadable item writes; the stack's alarm counts these lines. */
export const NETWORK_NOTIFICATION_UNREADABLE = 'NETWORK_NOTIFICATION_UNREADABLE';

/** A number as Meta writes it: a JSON number or a string of digits (`131215` and `"131215"`). */
const Numeric = v.union([
  v.number(),
  v.pipe(v.string(), v.trim(), v.regex(/^-?\d+(\.\d+)?$/, 'a number or a numeric string'), v.transform(Number)),
]);

const Text = v.optional(v.string());

const Errors = v.optional(
  v.array(v.looseObject({ code: v.optional(Numeric), message: Text, title: Text, href: Text })),
);
export type NetworkErrors = NonNullable<v.InferOutput<typeof Errors>>;

const Participant = v.looseObject({ wa_id: Text, user_id: Text, input: Text, username: Text });
export type NetworkParticipant = v.InferOutput<typeof Participant>;

const FailedParticipant = v.looseObject({ wa_id: Text, user_id: Text, input: Text, username: Text, errors: Errors });

/** One setting in a `group_settings_update`: whether Meta applied it. */
const SettingResult = v.looseObject({
  text: Text,
  update_successful: v.optional(v.boolean()),
  errors: Errors,
});

/** The type names of Meta's OpenAPI description, as the webhook reference spells them. */
const GROUP_TYPE_SPELLINGS: Record<string, string> = {
  group_add_participants: 'group_participants_add',
  group_remove_participants: 'group_participants_remove',
};

/** The field names of Meta's OpenAPI description, as the webhook reference spells them. */
const FIELD_SPELLINGS: Record<string, string> = {
  group_participant_update: 'group_participants_update',
};

export const GroupEvent = v.looseObject({
  type: v.pipe(
    v.string(),
    v.transform((type) => GROUP_TYPE_SPELLINGS[type] ?? type),
  ),
  timestamp: v.optional(Numeric),
  group_id: Text,
  request_id: Text,
  subject: Text,
  description: Text,
  invite_link: Text,
  join_approval_mode: Text,
  reason: Text,
  join_request_id: Text,
  wa_id: Text,
  user_id: Text,
  username: Text,
  added_participants: v.optional(v.array(Participant)),
  removed_participants: v.optional(v.array(Participant)),
  failed_participants: v.optional(v.array(FailedParticipant)),
  initiated_by: Text,
  group_subject: v.optional(SettingResult),
  group_description: v.optional(SettingResult),
  errors: Errors,
});
export type GroupEvent = v.InferOutput<typeof GroupEvent>;

export const InboundMessage = v.looseObject({
  id: v.string(),
  from: Text,
  from_user_id: Text,
  timestamp: v.optional(Numeric),
  type: Text,
  text: v.optional(v.looseObject({ body: Text })),
  group_id: Text,
  errors: Errors,
});
export type InboundMessage = v.InferOutput<typeof InboundMessage>;

export const StatusNotification = v.looseObject({
  id: v.string(),
  status: v.string(),
  timestamp: v.optional(Numeric),
  recipient_id: Text,
  recipient_type: Text,
  recipient_user_id: Text,
  group_id: Text,
  recipient_participant_id: Text,
  participant_recipient_id: Text,
  recipient_participant_user_id: Text,
  errors: Errors,
});
export type StatusNotification = v.InferOutput<typeof StatusNotification>;

/** One item of a batch, with the field and number it was reported under. */
export type NotificationItem =
  | { kind: 'group'; field: string; phoneNumberId: string; group: GroupEvent }
  | { kind: 'message'; field: string; phoneNumberId: string; message: InboundMessage }
  | { kind: 'status'; field: string; phoneNumberId: string; status: StatusNotification }
  | { kind: 'other'; field: string; phoneNumberId: string };

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
const safeName = (value: unknown): string | null =>
  typeof value === 'string' && /^[A-Za-z0-9_.]{1,64}$/.test(value) ? value : null;

/** Where the schema refused the item and what it expected, without the value it received. */
function reasonOf(issues: readonly v.BaseIssue<unknown>[]): string {
  const [issue] = issues;
  if (!issue) return 'unreadable';
  const path = (issue.path ?? []).map((item) => String(item.key)).join('.');
  return `${path || 'item'}: expected ${issue.expected ?? 'a readable value'}`.slice(0, 200);
}

/**
 * Splits a verified notification into its items, each read on its own: every `entry[].changes[]` item, and every
 * object of its `value.groups[]`, `value.messages[]` and `value.statuses[]`. `initiated_by` placed beside the group
 * object (on the change's `value`, as in Meta's sample) is read as the group object's own.
 */
export function readNotification(json: unknown): { items: NotificationItem[]; unreadable: UnreadableItem[] } {
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
    for (const change of changes) {
      const rawField = isObject(change) && typeof change.field === 'string' ? change.field : undefined;
      const value = isObject(change) ? change.value : undefined;
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
      const each = <S extends v.GenericSchema>(key: string, schema: S, add: (item: v.InferOutput<S>) => void) => {
        for (const raw of list(key)) {
          const parsed = v.safeParse(schema, raw);
          if (parsed.success) add(parsed.output);
          else {
            const type = isObject(raw) ? safeName(raw.type ?? raw.status) : null;
            unreadable.push({ field: safeName(field), type, reason: reasonOf(parsed.issues) });
          }
        }
      };
      if (GROUP_FIELDS.has(field)) {
        const initiatedBy = typeof value.initiated_by === 'string' ? value.initiated_by : undefined;
        each('groups', GroupEvent, (group) =>
          items.push({
            kind: 'group',
            field,
            phoneNumberId,
            group: group.initiated_by === undefined && initiatedBy ? { ...group, initiated_by: initiatedBy } : group,
          }),
        );
      } else if (field === 'messages') {
        each('messages', InboundMessage, (message) => items.push({ kind: 'message', field, phoneNumberId, message }));
        each('statuses', StatusNotification, (status) => items.push({ kind: 'status', field, phoneNumberId, status }));
      } else items.push({ kind: 'other', field, phoneNumberId });
    }
  }
  return { items, unreadable };
}

/** Meta's timestamps are Unix seconds (string or number). */
export function notificationTime(timestamp: string | number | undefined, fallback: Date): Date {
  const seconds = Number(timestamp);
  return Number.isFinite(seconds) && seconds > 0 ? new Date(seconds * 1000) : fallback;
}

/** Meta's first error of an item, as our `{code, message}` (its code kept as Meta's number, written as a string). */
export function firstError(errors: NetworkErrors | undefined, fallback: string) {
  const [first] = errors ?? [];
  return first
    ? { code: String(first.code ?? 'NETWORK_REJECTED'), message: first.message ?? first.title ?? fallback }
    : undefined;
}

/** The member whose receipt a status of a group message is (both published spellings), or undefined. */
export const statusParticipantId = (status: StatusNotification) =>
  status.recipient_participant_id ?? status.participant_recipient_id;
