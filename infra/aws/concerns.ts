/**
 * The service's concerns: each is a nested stack of the service stack holding its functions with their roles, log
 * groups and alarms, its routes, integrations and permissions, its queues and its rules (docs/architecture.md:
 * "Nested stacks by concern"). The stateful resources, the HTTP API and its stage, the keys and the secrets stay in
 * the service stack itself, so replacing or splitting a concern never touches the data.
 */
export const CONCERNS = {
  Foundation: 'tokens, public keys, health, documentation, channels and the 404/405 fallback',
  Groups: 'group creation, status, listing, settings and deletion, with their worker and sweeper',
  Chats: 'messages, receipts, assignment, participants, invite links and join requests, with the message sender',
  Network: "Meta's webhook: the verification handshake, the signed notifications kept, and the worker applying them",
  Webhooks:
    "outbound webhook subscriptions and deliveries, with the dispatchers (the slow receivers' apart) and their sweeper; the events feed and its writer",
  Reports: 'report requests, listing and downloads, report schedules, with the report worker and the sweepers',
  Console: "the organisation's console: its page and assets, its sign-in links and sessions, and its Overview read",
} as const;

export type Concern = keyof typeof CONCERNS;

/**
 * The concern of every function (by its `functions/` folder). A new function needs an entry: the stack refuses to
 * synthesize without one (a test checks the table against the deployed functions), so that a concern's size is a
 * decision, not an accident.
 */
export const FUNCTION_CONCERNS: Readonly<Record<string, Concern>> = {
  'issue-token': 'Foundation',
  'get-console': 'Console',
  'create-console-link': 'Console',
  'start-console-session': 'Console',
  'refresh-console-session': 'Console',
  'end-console-session': 'Console',
  'get-console-overview': 'Console',
  'get-jwks': 'Foundation',
  'get-health': 'Foundation',
  'get-openapi': 'Foundation',
  'get-docs': 'Foundation',
  'list-channels': 'Foundation',
  'route-not-found': 'Foundation',

  'create-group': 'Groups',
  'get-group-status': 'Groups',
  'list-groups': 'Groups',
  'get-group': 'Groups',
  'update-group': 'Groups',
  'delete-group': 'Groups',
  'group-worker': 'Groups',
  'group-sweeper': 'Groups',

  'get-chat': 'Chats',
  'list-messages': 'Chats',
  'list-receipts': 'Chats',
  'send-message': 'Chats',
  'message-sender': 'Chats',
  'assign-chat': 'Chats',
  'list-participants': 'Chats',
  'invite-participants': 'Chats',
  'remove-participants': 'Chats',
  'get-invite-link': 'Chats',
  'reset-invite-link': 'Chats',
  'list-join-requests': 'Chats',
  'approve-join-requests': 'Chats',
  'reject-join-requests': 'Chats',

  'verify-network-webhook': 'Network',
  'receive-network-webhook': 'Network',
  'apply-network-notifications': 'Network',

  'create-webhook': 'Webhooks',
  'list-webhooks': 'Webhooks',
  'update-webhook': 'Webhooks',
  'delete-webhook': 'Webhooks',
  'rotate-webhook-secret': 'Webhooks',
  'list-deliveries': 'Webhooks',
  'list-delivery-attempts': 'Webhooks',
  'redeliver-webhook': 'Webhooks',
  'send-webhook-test': 'Webhooks',
  'webhook-dispatcher': 'Webhooks',
  'slow-receiver-dispatcher': 'Webhooks',
  'webhook-sweeper': 'Webhooks',
  'list-events': 'Webhooks',
  'feed-writer': 'Webhooks',

  'request-report': 'Reports',
  'list-reports': 'Reports',
  'get-report': 'Reports',
  'download-report': 'Reports',
  'report-worker': 'Reports',
  'report-sweeper': 'Reports',
  'create-report-schedule': 'Reports',
  'list-report-schedules': 'Reports',
  'get-report-schedule': 'Reports',
  'update-report-schedule': 'Reports',
  'delete-report-schedule': 'Reports',
  'report-schedule-sweeper': 'Reports',
};

/** The concern of `fn`; a function without one fails the synth and names itself. */
export function concernOf(fn: string): Concern {
  const concern = FUNCTION_CONCERNS[fn];
  if (!concern) throw new Error(`function ${fn} has no concern: add it to FUNCTION_CONCERNS (infra/aws/concerns.ts)`);
  return concern;
}
