import * as v from 'valibot';
import { Count, ListQuery, NextCursor, Timestamp } from './common.ts';

/** Each top-level schema is built through this, so a bundle keeps only the schemas it uses (see common.ts). */
/* @__NO_SIDE_EFFECTS__ */ const schema = <T>(build: () => T): T => build();

const codePoints = (value: string) => [...value].length;

const Subject = schema(() =>
  v.pipe(
    v.string(),
    v.trim(),
    v.check((value) => codePoints(value) >= 1 && codePoints(value) <= 128, 'must be 1–128 characters after trimming'),
    // The bounds in the document (CONTRACT §19): 1–128 code points once trimmed, as the check counts; the pattern
    // allows the whitespace around them that the service trims (JSON Schema patterns are Unicode-aware).
    v.metadata({ minLength: 1, pattern: String.raw`^\s*(?=\S)[\s\S]{1,128}(?<=\S)\s*$` }),
  ),
);
const Description = schema(() =>
  v.pipe(
    v.string(),
    v.check((value) => codePoints(value) <= 2048, 'must be at most 2048 characters'),
    v.metadata({ maxLength: 2048 }),
  ),
);

export const CreateGroupBody = schema(() =>
  v.strictObject({
    channelId: v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(256)),
    subject: Subject,
    description: v.optional(Description),
    requireJoinApproval: v.optional(v.boolean(), true),
  }),
);
export type CreateGroupBody = v.InferOutput<typeof CreateGroupBody>;

export const GroupAccepted = schema(() =>
  v.object({
    requestId: v.string(),
    status: v.literal('pending'),
    statusUrl: v.string(),
  }),
);

const ErrorView = schema(() => v.object({ code: v.string(), message: v.string() }));

export const GroupRequestView = schema(() =>
  v.object({
    requestId: v.string(),
    status: v.picklist(['pending', 'creating', 'created', 'failed']),
    channelId: v.string(),
    subject: v.string(),
    chatId: v.optional(v.string()),
    inviteLink: v.optional(v.string()),
    error: v.optional(ErrorView),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  }),
);

export const RequestParams = schema(() =>
  v.object({ requestId: v.pipe(v.string(), v.minLength(1), v.maxLength(128)) }),
);
export const ChatParams = schema(() => v.object({ chatId: v.pipe(v.string(), v.minLength(1), v.maxLength(128)) }));

const E164 = schema(() =>
  v.pipe(v.string(), v.regex(/^\+[1-9]\d{6,14}$/, 'must be an E.164 phone number such as +4915112345678')),
);
const Id = schema(() => v.pipe(v.string(), v.minLength(1), v.maxLength(256)));

const ParticipantView = schema(() =>
  v.object({
    phoneNumber: v.pipe(v.nullable(v.string()), v.description('E.164; null when the network shows only a user id')),
    userId: v.pipe(v.nullable(v.string()), v.description("The network's user id; null when it shows only a number")),
    joinedAt: Timestamp,
  }),
);

/**
 * A chat (the CHAT record of CONTRACT §9) plus the group fields. `inviteLink` and `participants` are shown only to
 * ACCOUNT_OWNER, CRM_ADMIN and CRM_BOT.
 */
export const ChatView = schema(() =>
  v.object({
    chatId: v.string(),
    name: v.pipe(v.string(), v.description('For a group, its subject')),
    chatType: v.picklist(['INDIVIDUAL', 'GROUP']),
    channelId: v.string(),
    externalChatId: v.optional(v.pipe(v.string(), v.description("The network's id of the chat (a group's id)"))),
    isArchived: v.boolean(),
    isResolved: v.boolean(),
    isHighPriority: v.boolean(),
    autopilot: v.boolean(),
    botJourneyStatus: v.optional(v.picklist(['ACTIVE', 'AGENT_TRANSFERRED', 'CLOSED', 'COMPLETED'])),
    lastMessageFrom: v.optional(v.picklist(['GUEST', 'AGENT', 'BOT'])),
    assignedUserIds: v.array(v.string()),
    assignedTeamIds: v.array(v.string()),
    primaryAssigneeUserId: v.optional(v.string()),
    contactIds: v.array(v.string()),
    stateMachineIds: v.array(v.string()),
    currentStateIds: v.array(v.string()),
    labelIds: v.array(v.string()),
    externalItems: v.array(v.string()),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    inviteLink: v.optional(v.pipe(v.string(), v.description('Groups; works as a secret'))),
    participants: v.optional(v.array(ParticipantView)),
    requireJoinApproval: v.optional(v.boolean()),
    description: v.optional(v.pipe(v.string(), v.description("Groups: the group's description"))),
    groupStatus: v.optional(
      v.pipe(
        v.picklist(['active', 'suspended', 'deleted']),
        v.description('Groups; absent on groups created before it'),
      ),
    ),
  }),
);

export const MessageView = schema(() =>
  v.object({
    messageId: v.string(),
    chatId: v.string(),
    direction: v.picklist(['INBOUND', 'OUTBOUND']),
    from: v.pipe(
      v.string(),
      v.description("INBOUND: the sender's number. OUTBOUND: the sending credential's role (e.g. CRM_BOT)"),
    ),
    sentBy: v.pipe(
      v.nullable(v.string()),
      v.description('OUTBOUND: the sending credential’s opaque id (crd_…), never a client id; INBOUND: null'),
    ),
    text: v.string(),
    status: v.picklist(['queued', 'sent', 'delivered', 'read', 'failed']),
    error: v.optional(ErrorView),
    createdAt: Timestamp,
  }),
);
export const MessageList = schema(() => v.object({ messages: v.array(MessageView), nextCursor: NextCursor }));

export const MessageParams = schema(() =>
  v.object({
    chatId: v.pipe(v.string(), v.minLength(1), v.maxLength(128)),
    messageId: v.pipe(v.string(), v.minLength(1), v.maxLength(128)),
  }),
);
/** Each group member's receipts of an outbound message: its `delivered` and its `read`, each once (CONTRACT §16). */
export const ReceiptList = schema(() =>
  v.object({
    receipts: v.array(
      v.object({
        phoneNumber: v.pipe(v.nullable(v.string()), v.description('E.164; null for a member known only by user id')),
        userId: v.pipe(v.nullable(v.string()), v.description('The business-scoped user id, when Meta names it')),
        status: v.picklist(['delivered', 'read']),
        at: Timestamp,
      }),
    ),
    nextCursor: NextCursor,
  }),
);

export const SendMessageBody = schema(() =>
  v.strictObject({
    chatId: Id,
    text: v.pipe(
      v.string(),
      v.check((value) => codePoints(value) >= 1 && codePoints(value) <= 4096, 'must be 1–4096 characters'),
      v.metadata({ minLength: 1, maxLength: 4096 }),
    ),
  }),
);
export const MessageQueued = schema(() => v.object({ messageId: v.string(), status: v.literal('queued') }));

export const AssignmentBody = schema(() =>
  v.strictObject({
    userIds: v.optional(v.pipe(v.array(Id), v.maxLength(100))),
    teamIds: v.optional(v.pipe(v.array(Id), v.maxLength(100))),
    primaryUserId: v.optional(v.nullable(Id)),
  }),
);
export const AssignmentView = schema(() =>
  v.object({
    chatId: v.string(),
    assignedUserIds: v.array(v.string()),
    assignedTeamIds: v.array(v.string()),
    primaryAssigneeUserId: v.nullable(v.string()),
  }),
);

export const ParticipantList = schema(() => v.object({ participants: v.array(ParticipantView) }));
export const InviteParticipantsBody = schema(() =>
  v.strictObject({
    phoneNumbers: v.pipe(
      v.array(E164),
      v.minLength(1, 'must hold 1–8 numbers'),
      v.maxLength(8, 'must hold 1–8 numbers'),
    ),
  }),
);
export const Invitations = schema(() =>
  v.object({
    invitations: v.array(
      v.object({
        phoneNumber: v.string(),
        status: v.picklist(['sent', 'failed']),
        messageId: v.optional(v.string()),
        error: v.optional(ErrorView),
      }),
    ),
  }),
);
export const RemoveParticipantsBody = schema(() =>
  v.pipe(
    v.strictObject({ phoneNumbers: v.optional(v.array(E164)), userIds: v.optional(v.array(Id)) }),
    v.check((body) => {
      const count = (body.phoneNumbers?.length ?? 0) + (body.userIds?.length ?? 0);
      return count >= 1 && count <= 8;
    }, 'phoneNumbers and userIds must hold 1–8 entries in all'),
  ),
);
export const RemovalAccepted = schema(() =>
  v.object({
    status: v.literal('pending'),
    phoneNumbers: v.array(v.string()),
    userIds: v.array(v.string()),
  }),
);
export const InviteLink = schema(() => v.object({ inviteLink: v.string() }));
export const JoinRequestList = schema(() =>
  v.object({
    joinRequests: v.array(
      v.object({
        joinRequestId: v.string(),
        phoneNumber: v.nullable(v.string()),
        userId: v.nullable(v.string()),
        createdAt: Timestamp,
      }),
    ),
    nextCursor: NextCursor,
  }),
);
export const JoinRequestIdsBody = schema(() =>
  v.strictObject({
    joinRequestIds: v.pipe(v.array(Id), v.minLength(1, 'must hold 1–100 ids'), v.maxLength(100, 'must hold 1–100 ids')),
  }),
);
export const JoinRequestOutcome = schema(() =>
  v.object({
    succeeded: v.array(v.string()),
    failed: v.array(v.object({ joinRequestId: v.string(), error: ErrorView })),
  }),
);

export const GROUP_STATUSES = ['active', 'suspended', 'deleted'] as const;

export const GroupListQuery = schema(() =>
  v.strictObject({
    ...ListQuery.entries,
    channelId: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(256))),
    groupStatus: v.optional(v.picklist(GROUP_STATUSES, 'must be active, suspended or deleted')),
  }),
);

export const GroupView = schema(() =>
  v.object({
    chatId: v.string(),
    channelId: v.string(),
    externalChatId: v.nullable(v.string()),
    subject: v.string(),
    description: v.nullable(v.string()),
    groupStatus: v.picklist(GROUP_STATUSES),
    joinApprovalRequired: v.boolean(),
    participantCount: Count,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  }),
);
export const GroupList = schema(() => v.object({ groups: v.array(GroupView), nextCursor: NextCursor }));

export const UpdateGroupBody = schema(() =>
  v.pipe(
    v.strictObject({ subject: v.optional(Subject), description: v.optional(Description) }),
    v.check(
      (body) => body.subject !== undefined || body.description !== undefined,
      'give subject, description or both',
    ),
  ),
);
export const GroupChangeAccepted = schema(() => v.object({ chatId: v.string(), status: v.literal('pending') }));

export const WebhookVerifyQuery = schema(() =>
  v.looseObject({
    'hub.mode': v.optional(v.string()),
    'hub.verify_token': v.optional(v.string()),
    'hub.challenge': v.optional(v.pipe(v.string(), v.maxLength(1024))),
  }),
);

/** Meta's notification envelope (CONTRACT §5, §16), as an open object: the service reads what it knows of it. */
/**
 * Meta's notification envelope, as an open object whose every part may be missing or of another shape: the service
 * reads each item on its own and answers 200 to any signed JSON (CONTRACT §16), skipping what it cannot read.
 */
export const NetworkNotification = schema(() =>
  v.pipe(
    v.looseObject({
      object: v.optional(v.pipe(v.unknown(), v.description('whatsapp_business_account'))),
      entry: v.optional(
        v.pipe(
          v.unknown(),
          v.description(
            'Usually an array of {id, changes: [{field, value}]}; each change and each object in value.groups, ' +
              'value.messages and value.statuses is applied on its own, and an unreadable one is skipped',
          ),
        ),
      ),
    }),
    v.description('Any signed JSON is answered 200; Meta sends the envelope described here'),
  ),
);
export const NetworkReceived = schema(() => v.object({ received: v.literal(true) }));
