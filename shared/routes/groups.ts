import { ADMINS_AND_BOTS, ANY_ROLE } from '#shared/domain/auth/roles';
import { ListQuery } from '#shared/schemas/common';
import {
  AssignmentBody,
  ChatParams,
  CreateGroupBody,
  GroupListQuery,
  InviteParticipantsBody,
  JoinRequestIdsBody,
  MessageParams,
  NetworkNotification,
  RemoveParticipantsBody,
  RequestParams,
  SendMessageBody,
  UpdateGroupBody,
  WebhookVerifyQuery,
} from '#shared/schemas/groups';
import { defineRoute } from './route.ts';

const IDEMPOTENCY_HEADER = {
  name: 'Idempotency-Key',
  description: '1–255 printable ASCII characters; a retry with the same key and body replays the first answer (24 h)',
};
// Answers several routes share, each named rather than spread from one object: esbuild takes a spread for a side
// effect and would keep every route of this file in every bundle (route.ts, defineRoute).
const CHAT_NOT_FOUND = { description: 'CHAT_NOT_FOUND' };
const NOT_A_GROUP = { description: 'NOT_A_GROUP' };
const MEMBER_REFUSED = {
  description: 'NOT_A_GROUP, GROUP_DELETED (actions on a deleted group), or NETWORK_REJECTED with networkCode',
};
const NETWORK_UNAVAILABLE = { description: 'NETWORK_UNAVAILABLE (Retry-After)' };

export const createGroup = /* @__PURE__ */ defineRoute({
  operationId: 'createGroup',
  method: 'POST',
  path: '/groups/{orgId}',
  fn: 'create-group',
  summary: 'Request a group chat on an official WhatsApp channel (asynchronous)',
  tag: 'groups',
  auth: ADMINS_AND_BOTS,
  orgParam: 'orgId',
  body: CreateGroupBody,
  idempotent: true,
  headers: [IDEMPOTENCY_HEADER],
  responses: {
    202: { description: 'Accepted; poll statusUrl (also in Location)', schema: 'GroupAccepted', headers: ['Location'] },
    404: { description: 'CHANNEL_NOT_FOUND' },
    409: { description: 'IDEMPOTENCY_KEY_IN_USE (Retry-After)', headers: ['Retry-After'] },
    422: { description: 'CHANNEL_NOT_ELIGIBLE (reason) or IDEMPOTENCY_KEY_REUSED' },
    429: { description: 'RATE_LIMITED (Retry-After)' },
  },
});

export const getGroupCreationStatus = /* @__PURE__ */ defineRoute({
  operationId: 'getGroupCreationStatus',
  method: 'GET',
  path: '/groups/{orgId}/creation-status/{requestId}',
  fn: 'get-group-status',
  summary: 'Poll a group creation request',
  tag: 'groups',
  auth: ADMINS_AND_BOTS,
  orgParam: 'orgId',
  params: RequestParams,
  responses: {
    // no-store always: a poll's answer changes, and a created request's carries the invite link (CONTRACT §21).
    200: { description: 'The request', schema: 'GroupRequestView', headers: ['Cache-Control'] },
    404: { description: 'REQUEST_NOT_FOUND' },
  },
});

export const listGroups = /* @__PURE__ */ defineRoute({
  operationId: 'listGroups',
  method: 'GET',
  path: '/groups/{orgId}',
  fn: 'list-groups',
  summary: "The organisation's groups, newest first",
  tag: 'groups',
  auth: ADMINS_AND_BOTS,
  orgParam: 'orgId',
  query: GroupListQuery,
  responses: { 200: { description: 'Groups', schema: 'GroupList' } },
});

export const getGroup = /* @__PURE__ */ defineRoute({
  operationId: 'getGroup',
  method: 'GET',
  path: '/groups/{orgId}/{chatId}',
  fn: 'get-group',
  summary: 'Read a group (a deleted one included)',
  tag: 'groups',
  auth: ADMINS_AND_BOTS,
  orgParam: 'orgId',
  params: ChatParams,
  responses: { 200: { description: 'The group', schema: 'GroupView' }, 404: CHAT_NOT_FOUND, 422: NOT_A_GROUP },
});

export const updateGroup = /* @__PURE__ */ defineRoute({
  operationId: 'updateGroup',
  method: 'PATCH',
  path: '/groups/{orgId}/{chatId}',
  fn: 'update-group',
  callsNetwork: true,
  summary: "Change a group's subject or description (asynchronous: group.updated reports the outcome)",
  tag: 'groups',
  auth: ADMINS_AND_BOTS,
  orgParam: 'orgId',
  params: ChatParams,
  body: UpdateGroupBody,
  responses: {
    202: { description: 'Sent to the network; its notification applies each field', schema: 'GroupChangeAccepted' },
    404: CHAT_NOT_FOUND,
    422: MEMBER_REFUSED,
    503: NETWORK_UNAVAILABLE,
  },
});

export const deleteGroup = /* @__PURE__ */ defineRoute({
  operationId: 'deleteGroup',
  method: 'DELETE',
  path: '/groups/{orgId}/{chatId}',
  fn: 'delete-group',
  callsNetwork: true,
  summary: 'Delete a group on the network (asynchronous: group.deleted confirms it); the chat stays readable',
  tag: 'groups',
  auth: ADMINS_AND_BOTS,
  orgParam: 'orgId',
  params: ChatParams,
  responses: {
    202: { description: 'Deletion requested (or already done)', schema: 'GroupChangeAccepted' },
    404: { description: 'CHAT_NOT_FOUND' },
    422: { description: 'NOT_A_GROUP, or NETWORK_REJECTED with networkCode' },
    503: { description: 'NETWORK_UNAVAILABLE (Retry-After)' },
  },
});

export const verifyNetworkWebhook = /* @__PURE__ */ defineRoute({
  operationId: 'verifyNetworkWebhook',
  method: 'GET',
  path: '/network/whatsapp/webhook',
  fn: 'verify-network-webhook',
  summary: "Meta's webhook verification handshake",
  tag: 'network',
  auth: 'public',
  query: WebhookVerifyQuery,
  responses: {
    200: { description: 'hub.challenge, as text', contentType: 'text/plain' },
    403: { description: 'FORBIDDEN: wrong hub.verify_token' },
  },
});

export const receiveNetworkWebhook = /* @__PURE__ */ defineRoute({
  operationId: 'receiveNetworkWebhook',
  method: 'POST',
  path: '/network/whatsapp/webhook',
  fn: 'receive-network-webhook',
  summary: "Meta's signed notifications (X-Hub-Signature-256)",
  tag: 'network',
  auth: 'public',
  rawBody: true,
  rawBodySchema: NetworkNotification,
  headers: [
    {
      name: 'X-Hub-Signature-256',
      description: 'sha256=<hex HMAC-SHA256 of the raw body, keyed by the app secret>',
      required: true,
    },
  ],
  responses: {
    200: { description: 'Stored', schema: 'NetworkReceived' },
    503: { description: 'INTERNAL: the webhook is not configured (Retry-After); Meta retries' },
    401: { description: 'UNAUTHORIZED: missing or wrong signature; nothing changed' },
  },
});

export const getChat = /* @__PURE__ */ defineRoute({
  operationId: 'getChat',
  method: 'GET',
  path: '/chats/{orgId}/{chatId}',
  fn: 'get-chat',
  summary: 'Read a chat',
  tag: 'chats',
  auth: ANY_ROLE,
  orgParam: 'orgId',
  params: ChatParams,
  responses: {
    200: { description: 'The chat', schema: 'ChatView', headers: ['Cache-Control'] },
    404: { description: 'CHAT_NOT_FOUND' },
  },
});

export const listMessages = /* @__PURE__ */ defineRoute({
  operationId: 'listMessages',
  method: 'GET',
  path: '/chats/{orgId}/{chatId}/messages',
  fn: 'list-messages',
  summary: 'Read the conversation, oldest first',
  tag: 'chats',
  auth: ANY_ROLE,
  orgParam: 'orgId',
  params: ChatParams,
  query: ListQuery,
  responses: { 200: { description: 'Messages', schema: 'MessageList' }, 404: { description: 'CHAT_NOT_FOUND' } },
});

export const sendMessage = /* @__PURE__ */ defineRoute({
  operationId: 'sendMessage',
  method: 'POST',
  path: '/messaging/send-message',
  fn: 'send-message',
  summary: 'Send a text message to a chat (asynchronous)',
  tag: 'chats',
  auth: ANY_ROLE,
  body: SendMessageBody,
  responses: {
    202: { description: 'Queued; the outcome is recorded on the message', schema: 'MessageQueued' },
    404: { description: 'CHAT_NOT_FOUND' },
    422: { description: 'CHANNEL_NOT_SUPPORTED, or GROUP_DELETED for a deleted group' },
    429: { description: 'RATE_LIMITED (Retry-After): MESSAGE_SEND_RATE_LIMIT per organisation, 600/60 by default' },
  },
});

export const assignChat = /* @__PURE__ */ defineRoute({
  operationId: 'assignChat',
  method: 'POST',
  path: '/chat-assignments/{orgId}/{chatId}',
  fn: 'assign-chat',
  summary: 'Replace the users and teams assigned to a chat',
  tag: 'chats',
  auth: ANY_ROLE,
  orgParam: 'orgId',
  params: ChatParams,
  body: AssignmentBody,
  responses: {
    200: { description: 'The assignment', schema: 'AssignmentView' },
    404: { description: 'CHAT_NOT_FOUND' },
    422: { description: 'VALIDATION_FAILED: primaryUserId not among the assigned users' },
  },
});

export const listParticipants = /* @__PURE__ */ defineRoute({
  operationId: 'listParticipants',
  method: 'GET',
  path: '/groups/{orgId}/{chatId}/participants',
  fn: 'list-participants',
  summary: "A group's participants",
  tag: 'group members',
  auth: ADMINS_AND_BOTS,
  orgParam: 'orgId',
  params: ChatParams,
  responses: {
    200: { description: 'Participants', schema: 'ParticipantList' },
    404: CHAT_NOT_FOUND,
    422: MEMBER_REFUSED,
    503: NETWORK_UNAVAILABLE,
  },
});

export const inviteParticipants = /* @__PURE__ */ defineRoute({
  operationId: 'inviteParticipants',
  method: 'POST',
  path: '/groups/{orgId}/{chatId}/participants',
  fn: 'invite-participants',
  callsNetwork: true,
  summary: 'Send the invite link to 1–8 numbers (the network does not let a business add members)',
  tag: 'group members',
  auth: ADMINS_AND_BOTS,
  orgParam: 'orgId',
  params: ChatParams,
  body: InviteParticipantsBody,
  responses: {
    202: { description: 'One invitation per number', schema: 'Invitations' },
    404: CHAT_NOT_FOUND,
    422: MEMBER_REFUSED,
    503: NETWORK_UNAVAILABLE,
    429: { description: 'RATE_LIMITED (Retry-After): each number counts against MESSAGE_SEND_RATE_LIMIT' },
  },
});

export const removeParticipants = /* @__PURE__ */ defineRoute({
  operationId: 'removeParticipants',
  method: 'DELETE',
  path: '/groups/{orgId}/{chatId}/participants',
  fn: 'remove-participants',
  callsNetwork: true,
  summary: 'Remove 1–8 participants',
  tag: 'group members',
  auth: ADMINS_AND_BOTS,
  orgParam: 'orgId',
  params: ChatParams,
  body: RemoveParticipantsBody,
  responses: {
    202: { description: 'Removal requested; the participant list follows the network', schema: 'RemovalAccepted' },
    404: CHAT_NOT_FOUND,
    422: MEMBER_REFUSED,
    503: NETWORK_UNAVAILABLE,
  },
});

export const getInviteLink = /* @__PURE__ */ defineRoute({
  operationId: 'getInviteLink',
  method: 'GET',
  path: '/groups/{orgId}/{chatId}/invite-link',
  fn: 'get-invite-link',
  callsNetwork: true,
  summary: "The group's invite link",
  tag: 'group members',
  auth: ADMINS_AND_BOTS,
  orgParam: 'orgId',
  params: ChatParams,
  responses: {
    200: { description: 'Invite link', schema: 'InviteLink', headers: ['Cache-Control'] },
    404: CHAT_NOT_FOUND,
    422: MEMBER_REFUSED,
    503: NETWORK_UNAVAILABLE,
  },
});

export const resetInviteLink = /* @__PURE__ */ defineRoute({
  operationId: 'resetInviteLink',
  method: 'POST',
  path: '/groups/{orgId}/{chatId}/invite-link/reset',
  fn: 'reset-invite-link',
  callsNetwork: true,
  summary: 'Replace the invite link; the old one stops working',
  tag: 'group members',
  auth: ADMINS_AND_BOTS,
  orgParam: 'orgId',
  params: ChatParams,
  responses: {
    200: { description: 'The new invite link', schema: 'InviteLink', headers: ['Cache-Control'] },
    404: CHAT_NOT_FOUND,
    422: MEMBER_REFUSED,
    503: NETWORK_UNAVAILABLE,
  },
});

export const listJoinRequests = /* @__PURE__ */ defineRoute({
  operationId: 'listJoinRequests',
  method: 'GET',
  path: '/groups/{orgId}/{chatId}/join-requests',
  fn: 'list-join-requests',
  summary: 'Pending join requests',
  tag: 'group members',
  auth: ADMINS_AND_BOTS,
  orgParam: 'orgId',
  params: ChatParams,
  query: ListQuery,
  responses: {
    200: { description: 'Join requests', schema: 'JoinRequestList' },
    404: CHAT_NOT_FOUND,
    422: MEMBER_REFUSED,
    503: NETWORK_UNAVAILABLE,
  },
});

export const approveJoinRequests = /* @__PURE__ */ defineRoute({
  operationId: 'approveJoinRequests',
  method: 'POST',
  path: '/groups/{orgId}/{chatId}/join-requests/approve',
  fn: 'approve-join-requests',
  callsNetwork: true,
  summary: 'Approve join requests',
  tag: 'group members',
  auth: ADMINS_AND_BOTS,
  orgParam: 'orgId',
  params: ChatParams,
  body: JoinRequestIdsBody,
  responses: {
    200: { description: 'Per-request outcome', schema: 'JoinRequestOutcome' },
    404: CHAT_NOT_FOUND,
    422: MEMBER_REFUSED,
    503: NETWORK_UNAVAILABLE,
  },
});

export const rejectJoinRequests = /* @__PURE__ */ defineRoute({
  operationId: 'rejectJoinRequests',
  method: 'POST',
  path: '/groups/{orgId}/{chatId}/join-requests/reject',
  fn: 'reject-join-requests',
  callsNetwork: true,
  summary: 'Reject join requests',
  tag: 'group members',
  auth: ADMINS_AND_BOTS,
  orgParam: 'orgId',
  params: ChatParams,
  body: JoinRequestIdsBody,
  responses: {
    200: { description: 'Per-request outcome', schema: 'JoinRequestOutcome' },
    404: CHAT_NOT_FOUND,
    422: MEMBER_REFUSED,
    503: NETWORK_UNAVAILABLE,
  },
});

export const listReceipts = /* @__PURE__ */ defineRoute({
  operationId: 'listReceipts',
  method: 'GET',
  path: '/chats/{orgId}/{chatId}/messages/{messageId}/receipts',
  fn: 'list-receipts',
  summary: "Each group member's delivery and read receipt of an outbound message",
  tag: 'chats',
  auth: ADMINS_AND_BOTS,
  orgParam: 'orgId',
  params: MessageParams,
  query: ListQuery,
  responses: {
    200: {
      description: "Receipts: each member's delivered and read, each with its own time, members in turn",
      schema: 'ReceiptList',
    },
    404: { description: 'CHAT_NOT_FOUND, MESSAGE_NOT_FOUND' },
  },
});
