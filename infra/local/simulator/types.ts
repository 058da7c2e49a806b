export interface SimulatorOptions {
  /** The service's inbound webhook URL, where signed notifications are sent. Read at send time. */
  webhookUrl?: string;
  appSecret: string;
  /** Delay before a notification is sent: Meta's confirmations are asynchronous. @default 100 */
  webhookDelayMs?: number;
  /** Delivery attempts per notification (Meta retries for 7 days; locally a few tries). @default 3 */
  webhookAttempts?: number;
  /** Wait before the first retry, doubled for each further one. @default 200 */
  webhookRetryDelayMs?: number;
  /** `entry[].id` of notifications. @default '100000000000900' */
  wabaId?: string;
  /** `metadata.display_phone_number` per phone-number id; unknown ids get a number derived from the id. */
  displayPhoneNumbers?: Record<string, string>;
  /** Added to every Graph answer, so that concurrent calls overlap (RELIABILITY H-7). @default 0 */
  latencyMs?: number;
}

/** How the next `POST /{phoneNumberId}/groups` ends. Unscripted creates succeed. */
export interface GroupScript {
  /**
   * `success`: group + `group_create` notification after the webhook delay. `delay`: the same after `delayMs`.
   * `fail`: no group, a `group_create` notification with `errors[]`. `silent`: no notification (and no group unless
   * `groupCreated`). `reject`: a synchronous Graph error, no request id.
   */
  outcome: 'success' | 'fail' | 'silent' | 'delay' | 'reject';
  /** For `fail` / `reject`. @default 131215 */
  code?: number;
  message?: string;
  /** For `delay`. @default 2000 */
  delayMs?: number;
  /** For `silent`: the group exists (and is listed) although no notification comes. */
  groupCreated?: boolean;
  /**
   * Phone numbers the group starts with besides the business: its members from the start, listed in `group_create`
   * as `added_participants` (Meta's OpenAPI example).
   */
  addedParticipants?: string[];
}

/** How the next `DELETE /{groupId}` ends: Meta accepts it, then reports in `group_delete` that it failed. */
export interface DeleteScript {
  outcome: 'fail';
  /** @default 131041 */
  code?: number;
}

/** A settings change the service does not make (an admin in WhatsApp): `POST /_simulator/groups/:id/settings`. */
export interface SettingsChange {
  /** A new profile picture: `profile_picture` in `group_settings_update`. */
  profilePicture?: boolean;
  joinApprovalMode?: 'approval_required' | 'auto_approve';
}

/** How the next `POST /{groupId}` (settings update) ends: the listed settings fail in its notification. */
export interface SettingsScript {
  failFields: ('subject' | 'description')[];
  /** The error code of each failed setting. @default 100 */
  code?: number;
  message?: string;
}

export const FAULT_MODES = [
  'http500',
  'http429',
  'code131208',
  'code131056',
  'timeout-after-commit',
  'reset-after-commit',
  'hang',
] as const;
export type FaultMode = (typeof FAULT_MODES)[number];

/** A transport fault for the next `times` Graph calls matching `method` and `path` (a regex on `/{id}/{edge}`). */
export interface FaultSpec {
  method?: string;
  path?: string;
  mode: FaultMode;
  /** Only calls whose JSON body has this `to` (a message's recipient, e.g. one group: RELIABILITY H-2). */
  to?: string;
  /** @default 1 */
  times?: number;
  /** Sent as Retry-After with http429 / code131208. */
  retryAfterSeconds?: number;
}

export interface GroupView {
  groupId: string;
  phoneNumberId: string;
  requestId: string;
  subject: string;
  description?: string;
  joinApprovalMode: 'approval_required' | 'auto_approve';
  createdAt: string;
  inviteLink: string;
  /** wa_ids, the business excluded. */
  participants: string[];
  joinRequests: { joinRequestId: string; waId: string; createdAt: string }[];
  suspended: boolean;
}

export type MessageStatus = 'accepted' | 'sent' | 'delivered' | 'read' | 'failed';

export interface MessageView {
  messageId: string;
  phoneNumberId: string;
  recipientType: 'group' | 'individual';
  to: string;
  type: string;
  text?: string;
  template?: unknown;
  status: MessageStatus;
  createdAt: string;
}

export interface RequestLogEntry {
  at: string;
  method: string;
  /** Below the version, e.g. `/100000000000001/groups`. */
  path: string;
  query: Record<string, string>;
  body: unknown;
  /** Absent when no answer was written (hang, timeout-after-commit, reset-after-commit). */
  status?: number;
  fault?: FaultMode;
}

/** A control-API refusal (unknown group, not a participant, …). */
export class SimulatorError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: number,
  ) {
    super(message);
  }
}

export interface Group {
  id: string;
  phoneNumberId: string;
  requestId: string;
  subject: string;
  description?: string;
  joinApprovalMode: 'approval_required' | 'auto_approve';
  createdAt: number;
  inviteLink: string;
  participants: Map<string, number>;
  joinRequests: Map<string, { waId: string; createdAt: number }>;
  /** Removed by the business: Meta does not let them back in through the link. */
  removed: Set<string>;
  suspended: boolean;
}

export interface Message extends Omit<MessageView, 'createdAt'> {
  createdAt: number;
}

export type Json = Record<string, unknown>;
/** A Graph answer; `body: undefined` writes a 2xx with no body. */
export type Reply = { status: number; body: unknown; headers?: Record<string, string> };

/** Meta's limit of participants besides the business (WHATSAPP-GROUPS §1.1). */
export const MAX_PARTICIPANTS = 8;

export const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Meta's wa_id: the number's digits, without `+`. */
export function toWaId(input: unknown): string {
  const waId = typeof input === 'string' ? input.replace(/^\+/, '') : '';
  if (!/^\d{6,15}$/.test(waId)) throw new SimulatorError(400, 'waId must be a phone number (6 to 15 digits)');
  return waId;
}

/** A participant reference (phone number or business-scoped user id) as the removal matches it. */
export const toWaIdLoose = (input: string) => input.replace(/^\+/, '');

export function groupView(group: Group): GroupView {
  const iso = (seconds: number) => new Date(seconds * 1000).toISOString();
  return {
    groupId: group.id,
    phoneNumberId: group.phoneNumberId,
    requestId: group.requestId,
    subject: group.subject,
    ...(group.description !== undefined ? { description: group.description } : {}),
    joinApprovalMode: group.joinApprovalMode,
    createdAt: iso(group.createdAt),
    inviteLink: group.inviteLink,
    participants: [...group.participants.keys()],
    joinRequests: [...group.joinRequests].map(([joinRequestId, request]) => ({
      joinRequestId,
      waId: request.waId,
      createdAt: iso(request.createdAt),
    })),
    suspended: group.suspended,
  };
}
