import { createHash } from 'node:crypto';
import { SimulatorError } from './types.ts';

/**
 * The published variants of Meta's notifications and answers (CONTRACT §16, WHATSAPP-GROUPS §1.6). Meta's webhook
 * pages, its group-messaging page and its OpenAPI description disagree; the simulator sends whichever is chosen, per
 * group, per phone number or globally. The defaults are the webhook pages' spelling with numeric error codes.
 */
export interface Variants {
  /** The field of participant notifications: the pages' `group_participants_update` or OpenAPI's singular. */
  participantsField: 'group_participants_update' | 'group_participant_update';
  /** Add/remove types: the pages' `group_participants_add|remove` or OpenAPI's `group_add|remove_participants`. */
  participantTypes: 'group_participants_add' | 'group_add_participants';
  /** Error `code`s in notifications: numbers (reference table, OpenAPI) or quoted (the webhook page). */
  errorCodes: 'number' | 'string';
  /** `timestamp`s: Unix seconds as strings (the pages), integers (OpenAPI, one sample), or none at all (an SDK's fixture). */
  timestamps: 'string' | 'number' | 'absent';
  /** `initiated_by` of removals: on the group object, beside it on the change's `value` (the pages' samples), or absent. */
  initiatedBy: 'group' | 'value' | 'absent';
  /**
   * How participants are named: `wa_id` (phone number); only the business-scoped `user_id` with a `username`; both
   * (`wa_id`, `user_id`, `username`); or both with the `parent_user_id` of usernames (`parent_user_id`). The same for
   * receipts (`recipient_participant_user_id` beside the phone number) and inbound senders (`from_user_id`).
   */
  participantIds: 'wa_id' | 'user_id' | 'both' | 'parent_user_id';
  /** Statuses of group messages: one per message naming the group, or `delivered` / `read` per participant. */
  groupReceipts: 'group' | 'participants';
  /**
   * The key naming the participant of a per-participant status: both spellings on Meta's page, or `recipient_id`
   * (OpenAPI's `Statuses`: the group named by `group_id`, the member by `recipient_id`).
   */
  participantKey: 'recipient_participant_id' | 'participant_recipient_id' | 'recipient_id';
  /** How a status names its group: `recipient_id` + `recipient_type: "group"`, or `group_id` (OpenAPI). */
  groupKey: 'recipient_id' | 'group_id';
  /** `POST /{group-id}` and `DELETE /{group-id}/participants` answer 200 with no body (OpenAPI), not `{"success":true}`. */
  emptyBodies: boolean;
  /**
   * The template the business added from Meta's Template Library for invite links: only this name and language are
   * accepted, any other template is refused with 132001. `null`: any template, `group_invite_link` checked for its group.
   */
  inviteTemplate: { name: string; language: string } | null;
  /** An item the service cannot read mixed into every batch: inside the same list, as an extra change, or none. */
  unreadable: 'none' | 'item' | 'change';
  /**
   * Items per change: `one` notification per change, or `many`: notifications of one number and field that fall due
   * together travel as one change, every item in its list (`groups[]`, `statuses[]`, `messages[]`).
   */
  itemsPerChange: 'one' | 'many';
  /** Ids made only of digits (`wa_id`, `input`, `from`, `recipient_id`, `join_request_id`, …) as JSON numbers (OpenAPI). */
  numericIds: boolean;
  /** Statuses carry the `contacts[]` of the members they name (`profile.name`, `wa_id`, `user_id`). */
  statusContacts: boolean;
  /** A `group_create` carries the `invite_link` (the pages), or not (OpenAPI's example): the service asks for it. */
  createInviteLink: boolean;
  /** A participant's leave carries a `request_id`, as Meta's answers to the business do. */
  leaveRequestId: boolean;
  /** Every group notification under its documented field, or all under `group_lifecycle_update` (a known type under another field). */
  groupField: 'documented' | 'lifecycle';
}

export const DEFAULT_VARIANTS: Variants = {
  participantsField: 'group_participants_update',
  participantTypes: 'group_participants_add',
  errorCodes: 'number',
  timestamps: 'string',
  initiatedBy: 'group',
  participantIds: 'wa_id',
  groupReceipts: 'group',
  participantKey: 'recipient_participant_id',
  groupKey: 'recipient_id',
  emptyBodies: false,
  inviteTemplate: null,
  unreadable: 'none',
  itemsPerChange: 'one',
  numericIds: false,
  statusContacts: false,
  createInviteLink: true,
  leaveRequestId: false,
  groupField: 'documented',
};

const CHOICES: { [K in keyof Variants]?: readonly Variants[K][] } = {
  participantsField: ['group_participants_update', 'group_participant_update'],
  participantTypes: ['group_participants_add', 'group_add_participants'],
  errorCodes: ['number', 'string'],
  timestamps: ['string', 'number', 'absent'],
  initiatedBy: ['group', 'value', 'absent'],
  participantIds: ['wa_id', 'user_id', 'both', 'parent_user_id'],
  groupReceipts: ['group', 'participants'],
  participantKey: ['recipient_participant_id', 'participant_recipient_id', 'recipient_id'],
  groupKey: ['recipient_id', 'group_id'],
  emptyBodies: [false, true],
  unreadable: ['none', 'item', 'change'],
  itemsPerChange: ['one', 'many'],
  numericIds: [false, true],
  statusContacts: [false, true],
  createInviteLink: [true, false],
  leaveRequestId: [false, true],
  groupField: ['documented', 'lifecycle'],
};

/** Named sets: each published source as a whole. */
export const VARIANT_PRESETS: Record<string, Partial<Variants>> = {
  /** The defaults. */
  pages: {},
  /** The Groups API webhook page's samples: quoted codes, `initiated_by` beside the group, the other receipt key. */
  samples: {
    errorCodes: 'string',
    initiatedBy: 'value',
    groupReceipts: 'participants',
    participantKey: 'participant_recipient_id',
  },
  /**
   * Meta's OpenAPI description of the WhatsApp Business API: its spellings, integer timestamps, ids as numbers and no
   * invite link in its `group_create` example, and its `Statuses` (the group by `group_id`, the member by
   * `recipient_id`).
   */
  openapi: {
    participantsField: 'group_participant_update',
    participantTypes: 'group_add_participants',
    timestamps: 'number',
    groupReceipts: 'participants',
    groupKey: 'group_id',
    participantKey: 'recipient_id',
    numericIds: true,
    createInviteLink: false,
    emptyBodies: true,
  },
};

export interface VariantScope {
  phoneNumberId?: string;
  groupId?: string;
}

/** Validates a partial set of variants (or a `preset` name plus overrides) from the control API or a test. */
export function parseVariants(input: Record<string, unknown>): Partial<Variants> {
  const { preset, ...rest } = input;
  let result: Partial<Variants> = {};
  if (preset !== undefined) {
    const named = typeof preset === 'string' ? VARIANT_PRESETS[preset] : undefined;
    if (!named) throw new SimulatorError(400, `preset must be one of ${Object.keys(VARIANT_PRESETS).join(', ')}`);
    result = { ...named };
  }
  for (const [key, value] of Object.entries(rest)) {
    if (key === 'inviteTemplate') {
      result.inviteTemplate = parseTemplate(value);
      continue;
    }
    const choices = CHOICES[key as keyof Variants] as readonly unknown[] | undefined;
    if (!choices)
      throw new SimulatorError(400, `unknown variant ${key}; known: ${Object.keys(DEFAULT_VARIANTS).join(', ')}`);
    if (!choices.includes(value)) throw new SimulatorError(400, `${key} must be one of ${choices.join(', ')}`);
    (result as Record<string, unknown>)[key] = value;
  }
  return result;
}

function parseTemplate(value: unknown): Variants['inviteTemplate'] {
  if (value === null) return null;
  const template = value as { name?: unknown; language?: unknown } | undefined;
  if (
    typeof template?.name !== 'string' ||
    !template.name ||
    typeof template.language !== 'string' ||
    !template.language
  ) {
    throw new SimulatorError(400, 'inviteTemplate must be {"name", "language"} or null');
  }
  return { name: template.name, language: template.language };
}

/** The variants in force: a group's override over its phone number's over the global ones over the defaults. */
export class VariantRegistry {
  #global: Partial<Variants> = {};
  #phoneNumbers = new Map<string, Partial<Variants>>();
  #groups = new Map<string, Partial<Variants>>();

  set(variants: Partial<Variants>, scope: VariantScope = {}): void {
    if (scope.groupId) this.#groups.set(scope.groupId, { ...this.#groups.get(scope.groupId), ...variants });
    else if (scope.phoneNumberId) {
      this.#phoneNumbers.set(scope.phoneNumberId, { ...this.#phoneNumbers.get(scope.phoneNumberId), ...variants });
    } else this.#global = { ...this.#global, ...variants };
  }

  for(phoneNumberId: string, groupId?: string): Variants {
    return {
      ...DEFAULT_VARIANTS,
      ...this.#global,
      ...this.#phoneNumbers.get(phoneNumberId),
      ...(groupId ? this.#groups.get(groupId) : {}),
    };
  }

  list() {
    return {
      global: { ...DEFAULT_VARIANTS, ...this.#global },
      phoneNumbers: Object.fromEntries(this.#phoneNumbers),
      groups: Object.fromEntries(this.#groups),
    };
  }

  clear(): void {
    this.#global = {};
    this.#phoneNumbers.clear();
    this.#groups.clear();
  }
}

const COUNTRIES: [string, string][] = [
  ['49', 'DE'],
  ['44', 'GB'],
  ['55', 'BR'],
  ['91', 'IN'],
  ['1', 'US'],
];

/**
 * The business-scoped user id Meta would give this phone number (`CC.` + digits, like `US.13491208655302741918`):
 * derived from the number, so a test can compute it and the removal can match it.
 */
export function userIdOf(waId: string): string {
  const country = COUNTRIES.find(([prefix]) => waId.startsWith(prefix))?.[1] ?? 'US';
  const digits = BigInt(`0x${createHash('sha256').update(waId).digest('hex').slice(0, 16)}`).toString();
  return `${country}.${digits}`;
}

/** The username that comes with a user id. */
export const usernameOf = (waId: string) => `user${waId.slice(-4)}`;

/** The `parent_user_id` Meta gives a username's user across the businesses of one portfolio, derived likewise. */
export const parentUserIdOf = (waId: string) => `${userIdOf(waId).split('.')[0]}.P${userIdOf(waId).split('.')[1]}`;
