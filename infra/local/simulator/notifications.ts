import { envelope, ids, webhookError } from './meta.ts';
import { type Group, type Json, type Message, type MessageStatus, nowSeconds, type SimulatorOptions } from './types.ts';
import { parentUserIdOf, userIdOf, usernameOf, type VariantRegistry, type Variants } from './variants.ts';
import type { WebhookSender } from './webhooks.ts';

const PARTICIPANTS_FIELD = 'group_participants_update';
const GROUP_FIELDS = new Set([
  'group_lifecycle_update',
  PARTICIPANTS_FIELD,
  'group_settings_update',
  'group_status_update',
]);

/** A change still open for more items (`itemsPerChange: "many"`) until it falls due. */
interface OpenChange {
  value: Json;
  onDue: (() => void)[];
}

/** Which notification to send again, older: the latest matching one that was sent (CONTRACT §16 ordering). */
export interface ReplayFilter {
  groupId?: string;
  /** The field as sent (after any variant spelling). */
  field?: string;
  /** A group event's `type`, a status's `status` or a message's `type`. */
  type?: string;
  /** How much older its timestamps become. @default 60 */
  ageSeconds?: number;
  /** Skips this many newer matches: 1 replays the one before the latest. @default 0 */
  skip?: number;
}

/**
 * Builds the notifications the simulated Meta sends (WHATSAPP-GROUPS §1.3) in the variants chosen for the phone number
 * or group (variants.ts), and hands them to the webhook sender in Meta's envelope, after the webhook delay.
 * Builders write numbers; the chosen spelling of codes and timestamps is applied last, on the whole value.
 */
export class Notifier {
  closed = false;
  #open = new Map<string, OpenChange>();

  constructor(
    private readonly options: SimulatorOptions,
    private readonly sender: WebhookSender,
    private readonly variants: VariantRegistry,
  ) {}

  get delayMs(): number {
    return this.options.webhookDelayMs ?? 100;
  }

  /** Forgets the changes still open for more items (their sends are cancelled with the webhook sender's). */
  discardOpenChanges(): void {
    this.#open.clear();
  }

  /**
   * `group_create` that succeeded: with its `invite_link` unless the variant leaves it out, and the members it started
   * with as `added_participants` (OpenAPI's example).
   */
  groupCreated(group: Group, delayMs = this.delayMs): void {
    const v = this.#variants(group);
    const members = [...group.participants.keys()];
    this.#group(
      group,
      'group_lifecycle_update',
      {
        type: 'group_create',
        request_id: group.requestId,
        subject: group.subject,
        ...(v.createInviteLink ? { invite_link: group.inviteLink } : {}),
        join_approval_mode: group.joinApprovalMode,
        ...(members.length
          ? { added_participants: members.map((waId) => ({ input: waId, ...participant(v, waId) })) }
          : {}),
      },
      delayMs,
    );
  }

  /** `group_create` that failed: no group id, `errors[]`. */
  groupCreateFailed(
    phoneNumberId: string,
    input: { subject: string; description?: unknown; requestId: string; code: number; message?: string },
  ): void {
    this.#send(phoneNumberId, undefined, 'group_lifecycle_update', {
      groups: [
        {
          timestamp: nowSeconds(),
          type: 'group_create',
          subject: input.subject,
          description: input.description,
          request_id: input.requestId,
          errors: [webhookError(input.code, input.message, input.message)],
        },
      ],
    });
  }

  /** `group_delete`; with `code`, the deletion failed (`errors[]`) and the group stays. */
  groupDeleted(group: Group, requestId: string, code?: number): void {
    this.#group(group, 'group_lifecycle_update', {
      type: 'group_delete',
      request_id: requestId,
      ...(code !== undefined ? { errors: [webhookError(code)] } : {}),
    });
  }

  /** `group_settings_update`: one result object per setting asked for. */
  settingsUpdated(group: Group, requestId: string, results: { group_subject?: Json; group_description?: Json }): void {
    this.#group(group, 'group_settings_update', { type: 'group_settings_update', request_id: requestId, ...results });
  }

  /** A change of settings the service does not ask for: the profile picture, or who may join without approval. */
  settingsChanged(group: Group, change: { profilePicture?: boolean; joinApprovalMode?: string }): void {
    this.#group(group, 'group_settings_update', {
      type: 'group_settings_update',
      request_id: ids.request(),
      ...(change.profilePicture
        ? {
            profile_picture: {
              mime_type: 'image/jpeg',
              sha256: ids.request().slice(0, 30),
              update_successful: true,
            },
          }
        : {}),
      ...(change.joinApprovalMode ? { join_approval_mode: change.joinApprovalMode } : {}),
    });
  }

  groupStatus(group: Group, type: 'group_suspend' | 'group_suspend_cleared'): void {
    this.#group(group, 'group_status_update', { type });
  }

  joinRequest(
    group: Group,
    type: 'group_join_request_created' | 'group_join_request_revoked',
    joinRequestId: string,
    waId: string,
  ): void {
    const v = this.#variants(group);
    this.#group(group, PARTICIPANTS_FIELD, {
      type,
      reason: 'invite_link',
      join_request_id: joinRequestId,
      ...participant(v, waId),
    });
  }

  /** Joined through the link (`wa_id` only) or approved (`input` and `wa_id`); by `user_id` in that variant. */
  participantsAdded(group: Group, waIds: string[], how: 'joined' | 'approved'): void {
    const v = this.#variants(group);
    this.#group(group, PARTICIPANTS_FIELD, {
      type: participantType(v, 'add'),
      reason: 'invite_link',
      added_participants: waIds.map((waId) =>
        how === 'approved' && v.participantIds !== 'user_id'
          ? { input: waId, ...participant(v, waId) }
          : participant(v, waId),
      ),
    });
  }

  /** A participant left: `removed_participants: [{wa_id}]`, initiated by the participant (`leaveRequestId`: with a `request_id`). */
  participantLeft(group: Group, waId: string): void {
    const v = this.#variants(group);
    this.#group(group, PARTICIPANTS_FIELD, {
      type: participantType(v, 'remove'),
      ...(v.leaveRequestId ? { request_id: ids.request() } : {}),
      removed_participants: [participant(v, waId)],
      initiated_by: 'participant',
    });
  }

  /**
   * The business removed participants: each removed one by the `input` it was asked with (and its `user_id` in that
   * variant), the others in `failed_participants` (131212), with 131201 when only some failed.
   */
  participantsRemoved(
    group: Group,
    requestId: string,
    removed: { input: string; waId: string }[],
    failed: string[],
  ): void {
    const v = this.#variants(group);
    this.#group(group, PARTICIPANTS_FIELD, {
      type: participantType(v, 'remove'),
      request_id: requestId,
      ...(removed.length
        ? {
            removed_participants: removed.map(({ input, waId }) =>
              v.participantIds === 'wa_id' ? { input } : { input, ...participant(v, waId) },
            ),
          }
        : {}),
      ...(failed.length
        ? {
            failed_participants: failed.map((input) => ({ input, errors: [webhookError(131212)] })),
            errors: [webhookError(removed.length ? 131201 : 131212)],
          }
        : {}),
      initiated_by: 'business',
    });
  }

  /**
   * A participant writes to the group: `messages` with `group_id`, the sender by `from` and/or `from_user_id` as the
   * variant names participants; `unsupported` carries error 130501.
   */
  inboundMessage(group: Group, input: { id: string; from: string; name: string; text?: string }): void {
    const v = this.#variants(group);
    const content =
      input.text === undefined
        ? {
            type: 'unsupported',
            errors: [webhookError(130501, 'Message type is currently not supported.', 'Message type unknown')],
          }
        : { type: 'text', text: { body: input.text } };
    const byUserId = v.participantIds !== 'wa_id';
    const sender = {
      ...(v.participantIds !== 'user_id' ? { from: input.from } : {}),
      ...(byUserId ? { from_user_id: userIdOf(input.from) } : {}),
    };
    this.#send(group.phoneNumberId, group.id, 'messages', {
      contacts: [contact(v, input.from, input.name)],
      messages: [{ ...sender, id: input.id, timestamp: nowSeconds(), ...content, group_id: group.id }],
    });
  }

  /**
   * A status of a sent message; the message takes the status when the notification is due. For a group message it
   * names the group (as the variant says) and, for `delivered` / `read`, either no participant, the one given, or
   * (per-participant variant) every participant of `group`, one status each in the same batch.
   */
  messageStatus(
    message: Message,
    status: Exclude<MessageStatus, 'accepted'>,
    delayMs: number,
    options: { code?: number; participant?: string; group?: Group } = {},
  ): void {
    const isGroup = message.recipientType === 'group';
    const v = this.variants.for(message.phoneNumberId, isGroup ? message.to : undefined);
    const category = isGroup ? 'group_service' : message.type === 'template' ? 'utility' : 'service';
    const pricing =
      status === 'sent' || status === 'delivered'
        ? { pricing: { billable: true, pricing_model: 'PMP', type: 'regular', category } }
        : {};
    const errors = options.code !== undefined ? { errors: [webhookError(options.code)] } : {};
    const head = { id: message.messageId, status, timestamp: nowSeconds() };
    let statuses: Json[];
    let contacts: Json[] | undefined;
    if (!isGroup) {
      statuses = [{ ...head, recipient_id: message.to, ...pricing, ...errors }];
    } else {
      // OpenAPI's `Statuses` name the member by `recipient_id`, so the group by `group_id`.
      const groupName =
        v.groupKey === 'group_id' || v.participantKey === 'recipient_id'
          ? { group_id: message.to }
          : { recipient_id: message.to, recipient_type: 'group' };
      const perParticipant = v.groupReceipts === 'participants' && (status === 'delivered' || status === 'read');
      const participants = options.participant
        ? [options.participant]
        : perParticipant
          ? [...(options.group?.participants.keys() ?? [])]
          : [];
      statuses = participants.length
        ? participants.map((waId) => ({
            ...head,
            ...groupName,
            [v.participantKey]: v.participantIds === 'user_id' ? userIdOf(waId) : waId,
            ...(v.participantIds === 'both' || v.participantIds === 'parent_user_id'
              ? { recipient_participant_user_id: userIdOf(waId) }
              : {}),
            ...errors,
          }))
        : [{ ...head, ...groupName, ...pricing, ...errors }];
      if (v.statusContacts && participants.length) {
        contacts = participants.map((waId) => contact(v, waId, `Participant ${waId.slice(-4)}`));
      }
    }
    const value = contacts ? { contacts, statuses } : { statuses };
    this.#send(message.phoneNumberId, isGroup ? message.to : undefined, 'messages', value, delayMs, () => {
      message.status = status;
    });
  }

  /**
   * Sends the latest matching notification again with every `timestamp` `ageSeconds` older: Meta's late retry of
   * a notification, after newer ones. Returns its field, or undefined when none matches.
   */
  replay(filter: ReplayFilter): string | undefined {
    const age = filter.ageSeconds ?? 60;
    let skip = filter.skip ?? 0;
    const sent = this.sender.log.filter((delivery) => delivery.replay === 0);
    for (let index = sent.length - 1; index >= 0; index--) {
      const delivery = sent[index]!;
      if (filter.field && delivery.field !== filter.field) continue;
      const payload = JSON.parse(delivery.rawBody) as { entry: { changes: { value: Json }[] }[] };
      const items = payload.entry
        .flatMap((entry) => entry.changes)
        .flatMap(({ value }) =>
          ['groups', 'statuses', 'messages'].flatMap((key) =>
            Array.isArray(value[key]) ? (value[key] as Json[]) : [],
          ),
        );
      const matches = items.some(
        (item) =>
          (!filter.groupId || [item.group_id, item.recipient_id].includes(filter.groupId)) &&
          (!filter.type || [item.type, item.status].includes(filter.type)),
      );
      if (!matches || skip-- > 0) continue;
      this.sender.send(
        delivery.field,
        mapTimestamps(payload, (seconds) => seconds - age),
        this.delayMs,
      );
      return delivery.field;
    }
    return undefined;
  }

  #variants(group: Group): Variants {
    return this.variants.for(group.phoneNumberId, group.id);
  }

  /** A group event; `initiated_by` goes where the variant puts it (on the group object, beside it, nowhere). */
  #group(group: Group, field: string, event: Json, delayMs?: number): void {
    const v = this.#variants(group);
    const { initiated_by: initiatedBy, ...rest } = event;
    const item = {
      timestamp: nowSeconds(),
      group_id: group.id,
      ...rest,
      ...(initiatedBy && v.initiatedBy === 'group' ? { initiated_by: initiatedBy } : {}),
    };
    const value = {
      groups: [item],
      ...(initiatedBy && v.initiatedBy === 'value' ? { initiated_by: initiatedBy } : {}),
    };
    this.#send(group.phoneNumberId, group.id, field, value, delayMs);
  }

  #send(
    phoneNumberId: string,
    groupId: string | undefined,
    field: string,
    value: Json,
    delayMs = this.delayMs,
    onDue?: () => void,
  ): void {
    if (this.closed) return;
    const v = this.variants.for(phoneNumberId, groupId);
    const sentField =
      GROUP_FIELDS.has(field) && v.groupField === 'lifecycle'
        ? 'group_lifecycle_update'
        : field === PARTICIPANTS_FIELD
          ? v.participantsField
          : field;
    const displayPhoneNumber =
      this.options.displayPhoneNumbers?.[phoneNumberId] ?? `1555${phoneNumberId.replace(/\D/g, '').slice(-7)}`;
    const metadata = { display_phone_number: displayPhoneNumber, phone_number_id: phoneNumberId };
    const build = (change: Json) =>
      withUnreadable(envelope(this.options.wabaId ?? '100000000000900', metadata, sentField, change), v);
    const spelled = respell(value, v) as Json;
    if (v.itemsPerChange === 'one') {
      this.sender.send(sentField, build(spelled), delayMs, onDue);
      return;
    }
    // Items of one number and field falling due together travel as one change, when the rest of it is the same.
    const key = JSON.stringify([phoneNumberId, sentField, delayMs, withoutLists(spelled)]);
    const open = this.#open.get(key);
    if (open) {
      for (const [name, list] of Object.entries(spelled)) {
        if (Array.isArray(list)) open.value[name] = [...((open.value[name] as Json[] | undefined) ?? []), ...list];
      }
      if (onDue) open.onDue.push(onDue);
      return;
    }
    const change: OpenChange = { value: spelled, onDue: onDue ? [onDue] : [] };
    this.#open.set(key, change);
    this.sender.send(
      sentField,
      () => {
        this.#open.delete(key);
        return build(change.value);
      },
      delayMs,
      () => {
        for (const due of change.onDue) due();
      },
    );
  }
}

/** A change's value without its lists of items: what must be the same for two items to share the change. */
const withoutLists = (value: Json) => Object.entries(value).filter(([, item]) => !Array.isArray(item));

/** A contact as Meta lists it beside messages and statuses: name and ids, as the variant names participants. */
function contact(v: Variants, waId: string, name: string): Json {
  return {
    profile: { name },
    ...(v.participantIds !== 'user_id' ? { wa_id: waId } : {}),
    ...(v.participantIds !== 'wa_id' ? { user_id: userIdOf(waId) } : {}),
  };
}

function participant(v: Variants, waId: string): Json {
  switch (v.participantIds) {
    case 'user_id':
      return { user_id: userIdOf(waId), username: usernameOf(waId) };
    case 'both':
      return { wa_id: waId, user_id: userIdOf(waId), username: usernameOf(waId) };
    case 'parent_user_id':
      return { wa_id: waId, user_id: userIdOf(waId), parent_user_id: parentUserIdOf(waId), username: usernameOf(waId) };
    default:
      return { wa_id: waId };
  }
}

function participantType(v: Variants, change: 'add' | 'remove'): string {
  return v.participantTypes === 'group_add_participants'
    ? `group_${change}_participants`
    : `group_participants_${change}`;
}

/** The ids Meta's OpenAPI examples write as numbers when they are digits (`numericIds`). */
const ID_KEYS = new Set([
  'wa_id',
  'input',
  'from',
  'recipient_id',
  'recipient_participant_id',
  'participant_recipient_id',
  'join_request_id',
  'phone_number_id',
  'display_phone_number',
]);

/** An id of digits as a JSON number, where that number is exact (a longer one stays text, as JSON would lose it). */
const asNumber = (id: unknown) =>
  typeof id === 'string' && /^\d+$/.test(id) && Number.isSafeInteger(Number(id)) ? Number(id) : id;

/** Error `code`s (inside any `errors[]`), `timestamp`s and ids in the variant's spelling. */
function respell(node: unknown, v: Variants, inErrors = false): unknown {
  if (Array.isArray(node)) return node.map((item) => respell(item, v, inErrors));
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node).flatMap(([key, item]): [string, unknown][] => {
      if (key === 'timestamp' && (typeof item === 'number' || typeof item === 'string')) {
        if (v.timestamps === 'absent') return [];
        return [[key, v.timestamps === 'number' ? Number(item) : String(item)]];
      }
      if (v.numericIds && ID_KEYS.has(key)) return [[key, asNumber(item)]];
      if (key === 'code' && inErrors && typeof item === 'number') {
        return [[key, v.errorCodes === 'string' ? String(item) : item]];
      }
      return [[key, respell(item, v, key === 'errors' || (inErrors && key !== 'error_data'))]];
    }),
  );
}

/** Every numeric `timestamp` mapped, keeping its spelling (number or string). */
function mapTimestamps(node: unknown, map: (seconds: number) => number): unknown {
  if (Array.isArray(node)) return node.map((item) => mapTimestamps(item, map));
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, item]) => {
      if (key === 'timestamp' && /^\d+$/.test(String(item))) {
        const moved = map(Number(item));
        return [key, typeof item === 'number' ? moved : String(moved)];
      }
      return [key, mapTimestamps(item, map)];
    }),
  );
}

const UNREADABLE: Record<string, Json> = {
  groups: { type: 42, group_id: null, timestamp: 'yesterday' },
  statuses: { id: 42, status: null, timestamp: 'yesterday' },
  messages: { id: 42, from: null, type: 42, timestamp: 'yesterday' },
};

/** The variant's unreadable item: first in the same list, or a change of its own before the real one. */
function withUnreadable(payload: ReturnType<typeof envelope>, v: Variants): unknown {
  if (v.unreadable === 'none') return payload;
  const [change] = payload.entry[0]!.changes;
  const value = change!.value as Json;
  const key = Object.keys(UNREADABLE).find((name) => Array.isArray(value[name]));
  if (!key) return payload;
  const changes: Json[] =
    v.unreadable === 'item'
      ? [{ ...change!, value: { ...value, [key]: [UNREADABLE[key], ...(value[key] as Json[])] } }]
      : [
          {
            field: change!.field,
            value: { messaging_product: 'whatsapp', metadata: value.metadata, [key]: 'unreadable' },
          },
          change!,
        ];
  return { ...payload, entry: [{ ...payload.entry[0]!, changes }] };
}
