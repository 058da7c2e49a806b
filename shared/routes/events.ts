import { ADMINS_AND_BOTS } from '#shared/domain/auth/roles';
import { EventFeedQuery } from '#shared/schemas/feed';
import { defineRoute } from './route.ts';

export const listEvents = /* @__PURE__ */ defineRoute({
  operationId: 'listEvents',
  method: 'GET',
  path: '/events/{orgId}',
  fn: 'list-events',
  summary:
    'The events feed: every event published for the organisation, oldest first, with its webhook body and webhook-id; ' +
    'follow "iterator" to see each exactly once',
  tag: 'events',
  auth: ADMINS_AND_BOTS,
  orgParam: 'orgId',
  query: EventFeedQuery,
  responses: {
    // no-store: group.created bodies carry invite links (CONTRACT §21).
    200: {
      description: 'A page of the feed, the iterator to go on from, and whether the caller is caught up',
      schema: 'EventFeedPage',
      headers: ['Cache-Control'],
    },
    410: {
      description:
        'ITERATOR_EXPIRED: events after the iterator were removed by the retention (EVENT_RETENTION_SECONDS, 30 days ' +
        'by default) before it read them, or the iterator is older than that; start again without one',
    },
  },
});
