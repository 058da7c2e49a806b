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

/** A concern's size is a decision: each function's row (infra/aws/functions.ts) names its concern. */
export type Concern = keyof typeof CONCERNS;
