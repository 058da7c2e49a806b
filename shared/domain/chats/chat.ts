import { derivedCredentialId } from '#shared/domain/auth/credential-id';

/** A chat: the CHAT record of CONTRACT §9, plus the group fields for groups. */
export type GroupStatus = 'active' | 'suspended' | 'deleted';

export interface Participant {
  phoneNumber: string | null;
  userId: string | null;
  joinedAt: string;
}

export interface Chat {
  chatId: string;
  orgId: string;
  name: string;
  chatType: 'INDIVIDUAL' | 'GROUP';
  channelId: string;
  externalChatId?: string;
  isArchived: boolean;
  isResolved: boolean;
  isHighPriority: boolean;
  autopilot: boolean;
  botJourneyStatus?: 'ACTIVE' | 'AGENT_TRANSFERRED' | 'CLOSED' | 'COMPLETED';
  lastMessageFrom?: 'GUEST' | 'AGENT' | 'BOT';
  assignedUserIds: string[];
  assignedTeamIds: string[];
  primaryAssigneeUserId?: string;
  contactIds: string[];
  stateMachineIds: string[];
  currentStateIds: string[];
  labelIds: string[];
  externalItems: string[];
  createdAt: string;
  updatedAt: string;
  inviteLink?: string;
  participants?: Participant[];
  requireJoinApproval?: boolean;
  /** Groups: the description (the subject is the chat's `name`). */
  description?: string;
  /** Groups: absent on groups stored before the lifecycle existed, which are `active`. */
  groupStatus?: GroupStatus;
  /**
   * Groups: the time of the last network notification applied to each member (`phone:<E.164>` / `user:<id>`), kept
   * after they leave, so that an older notification never rolls a member back (CONTRACT §16).
   */
  memberUpdatedAt?: Record<string, string>;
  /** Groups: the time of the last network notification applied to the group's status. */
  statusUpdatedAt?: string;
  /** Groups: the time of the last network notification applied to the group's settings. */
  settingsUpdatedAt?: string;
  /**
   * Groups: the time of the last network notification that changed each of `status`, `settings` and each member (keys
   * as in `memberUpdatedAt`). A notification that changes nothing publishes nothing, except a repeat of the one that
   * made the change (the same time: a retry after a failure before its event was recorded), whose event the outbox
   * keeps to one.
   */
  changedAt?: Record<string, string>;
}

/** A new chat: no flags set, nothing assigned or linked yet. */
export function newChat(
  fields: Pick<Chat, 'chatId' | 'orgId' | 'name' | 'chatType' | 'channelId'> & Partial<Chat> & { now: string },
): Chat {
  const { now, ...rest } = fields;
  return {
    isArchived: false,
    isResolved: false,
    isHighPriority: false,
    autopilot: false,
    assignedUserIds: [],
    assignedTeamIds: [],
    contactIds: [],
    stateMachineIds: [],
    currentStateIds: [],
    labelIds: [],
    externalItems: [],
    createdAt: now,
    updatedAt: now,
    ...rest,
  };
}

export type MessageStatus = 'queued' | 'sent' | 'delivered' | 'read' | 'failed';

export interface Message {
  messageId: string;
  chatId: string;
  orgId: string;
  direction: 'INBOUND' | 'OUTBOUND';
  /** Inbound: the sender's number. Outbound: the sending credential's role (CONTRACT §18), never its client id. */
  from: string;
  /** Outbound: the sending credential's opaque id (`crd_…`). */
  sentBy?: string;
  text: string;
  status: MessageStatus;
  error?: { code: string; message: string };
  /** Meta's wamid. */
  networkMessageId?: string;
  /** Set while the send call's outcome is unknown. */
  sendingSince?: string;
  createdAt: string;
}

/** Status order for Meta's notifications: a later notification never moves a message backwards. */
export const STATUS_RANK: Record<MessageStatus, number> = { queued: 0, sent: 1, delivered: 2, read: 3, failed: 4 };

/** One group member's receipt of an outbound group message: its `delivered` or its `read` (CONTRACT §16). */
export interface Receipt {
  phoneNumber: string | null;
  userId: string | null;
  status: 'delivered' | 'read';
  at: string;
}

export interface JoinRequest {
  joinRequestId: string;
  phoneNumber: string | null;
  userId: string | null;
  createdAt: string;
}

export function messageView(message: Message) {
  const { messageId, chatId, direction, text, status, error, createdAt } = message;
  return {
    messageId,
    chatId,
    direction,
    ...sender(message),
    text,
    status,
    ...(error ? { error } : {}),
    createdAt,
  };
}

/**
 * Who sent a message, as callers see it. Outbound messages stored before CONTRACT §18 recorded the client id in
 * `from`: they show the id derived from it and no role (it was not recorded), never the client id itself.
 */
function sender(message: Message): { from: string; sentBy: string | null } {
  if (message.direction === 'INBOUND') return { from: message.from, sentBy: null };
  if (message.sentBy) return { from: message.from, sentBy: message.sentBy };
  return { from: 'UNKNOWN', sentBy: derivedCredentialId(message.from) };
}

export function chatView(chat: Chat) {
  const { orgId, memberUpdatedAt, statusUpdatedAt, settingsUpdatedAt, changedAt, ...view } = chat;
  return view;
}

export const groupStatusOf = (chat: Chat): GroupStatus => chat.groupStatus ?? 'active';

/** A group as GET /groups lists it (CONTRACT §11). */
export function groupView(chat: Chat) {
  return {
    chatId: chat.chatId,
    channelId: chat.channelId,
    externalChatId: chat.externalChatId ?? null,
    subject: chat.name,
    description: chat.description ?? null,
    groupStatus: groupStatusOf(chat),
    joinApprovalRequired: chat.requireJoinApproval ?? true,
    participantCount: chat.participants?.length ?? 0,
    createdAt: chat.createdAt,
    updatedAt: chat.updatedAt,
  };
}
