/**
 * The messaging network (Meta's WhatsApp Cloud API, Graph). The adapter speaks Graph over fetch; the domain only
 * sees these calls and NetworkError's three kinds, which decide between retrying, reconciling and failing.
 */
export interface NetworkChannel {
  /** Meta's phone-number id of the business number. */
  phoneNumberId: string;
  accessToken: string;
}

export interface NetworkGroup {
  groupId: string;
  subject: string;
  /** When Meta created it (ISO 8601), if known. */
  createdAt?: string;
}

export interface JoinRequestOutcome {
  succeeded: string[];
  failed: { joinRequestId: string; code?: number; message: string }[];
}

export interface MessagingNetwork {
  /** The longest a call may stay unanswered before it fails: an outcome is unknown at most this long. */
  readonly callTimeoutSeconds: number;
  /** POST /{phoneNumberId}/groups; returns Meta's request_id. The group itself arrives by webhook. */
  createGroup(
    channel: NetworkChannel,
    input: { subject: string; description?: string; joinApprovalMode: 'approval_required' | 'auto_approve' },
  ): Promise<{ networkRequestId: string }>;
  /** GET /{phoneNumberId}/groups, every page: the number's active groups. */
  listGroups(channel: NetworkChannel): Promise<NetworkGroup[]>;
  /**
   * POST /{groupId} with the settings to change. Meta answers at once; whether each field took effect arrives in
   * its `group_settings_update` notification.
   */
  updateGroupSettings(
    channel: NetworkChannel,
    groupId: string,
    settings: { subject?: string; description?: string },
  ): Promise<void>;
  /** DELETE /{groupId}. */
  deleteGroup(channel: NetworkChannel, groupId: string): Promise<void>;
  /** GET /{groupId}/invite_link. */
  getInviteLink(channel: NetworkChannel, groupId: string): Promise<string>;
  /** POST /{groupId}/invite_link: a new link; the old ones stop working. */
  resetInviteLink(channel: NetworkChannel, groupId: string): Promise<string>;
  /** POST /{phoneNumberId}/messages, text, to a group (`recipient_type: group`) or one number. */
  sendText(
    channel: NetworkChannel,
    to: { groupId: string } | { phoneNumber: string },
    text: string,
  ): Promise<{ networkMessageId: string }>;
  /**
   * POST /{phoneNumberId}/messages with the business's copy of Meta's group invite-link template (`template`: its
   * name and language there) for `groupId`.
   */
  sendGroupInvite(
    channel: NetworkChannel,
    phoneNumber: string,
    groupId: string,
    template: { name: string; language: string },
  ): Promise<{ networkMessageId: string }>;
  /** DELETE /{groupId}/participants; `users` are phone numbers or business-scoped user ids (max 8). */
  removeParticipants(channel: NetworkChannel, groupId: string, users: string[]): Promise<void>;
  /** POST /{groupId}/join_requests. */
  approveJoinRequests(channel: NetworkChannel, groupId: string, joinRequestIds: string[]): Promise<JoinRequestOutcome>;
  /** DELETE /{groupId}/join_requests. */
  rejectJoinRequests(channel: NetworkChannel, groupId: string, joinRequestIds: string[]): Promise<JoinRequestOutcome>;
}

/**
 * - `not-sent`: the call certainly had no effect (refused before sending, 429 / 130429 / 131208 / 131056): safe to retry.
 * - `ambiguous`: it may have taken effect (timeout or 5xx after sending, unreadable answer): reconcile before repeating.
 * - `rejected`: Meta refused it (a 4xx with a Graph error code): permanent.
 */
export type NetworkErrorKind = 'not-sent' | 'ambiguous' | 'rejected';

export class NetworkError extends Error {
  constructor(
    readonly kind: NetworkErrorKind,
    message: string,
    readonly details: { code?: number; httpStatus?: number; retryAfterSeconds?: number } = {},
  ) {
    super(message);
    this.name = 'NetworkError';
  }

  get code(): number | undefined {
    return this.details.code;
  }
}
