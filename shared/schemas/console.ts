import * as v from 'valibot';
import { ROLES } from '#shared/domain/auth/roles';
import { CONSOLE_ACCESS } from '#shared/domain/console/model';
import { EVENT_TYPES } from '#shared/events/catalog';
import { Count, Timestamp } from './common.ts';

/** Each top-level schema is built through this, so a bundle keeps only the schemas it uses (see common.ts). */
/* @__NO_SIDE_EFFECTS__ */ const schema = <T>(build: () => T): T => build();

export const ConsoleLinkRequest = schema(() =>
  v.strictObject({
    access: v.pipe(
      v.optional(v.picklist(CONSOLE_ACCESS), 'manage'),
      v.description('`manage` (the default) may change things; `read` sees every page and changes nothing'),
    ),
    sessionSeconds: v.pipe(
      v.optional(v.pipe(v.number(), v.integer(), v.minValue(300), v.maxValue(604_800)), 86_400),
      v.description('How long the session that the link opens lasts, 300 s to 7 days (default one day)'),
    ),
  }),
);

export const ConsoleLink = schema(() =>
  v.object({
    url: v.pipe(
      v.string(),
      v.description("The console's address with a one-time code in its fragment: good for one use within 10 minutes"),
    ),
    expiresAt: v.pipe(Timestamp, v.description('When the code stops working, if unused')),
  }),
);

export const ConsoleSessionRequest = schema(() =>
  v.strictObject({
    code: v.pipe(
      v.string(),
      v.minLength(1),
      v.maxLength(256),
      v.description("The code from the link's fragment (`<orgId>.<secret>`), as it is"),
    ),
  }),
);

/** The session routes that read only the cookie still take a JSON body (`{}`): no form post of another site fits. */
export const EmptyBody = schema(() => v.strictObject({}));

export const ConsoleSessionToken = schema(() =>
  v.object({
    accessToken: v.pipe(v.string(), v.description('An access token of the session: keep it in memory only')),
    tokenType: v.literal('Bearer'),
    expiresIn: v.pipe(v.number(), v.integer(), v.description('Seconds until the token expires (at most 600)')),
    org: v.string(),
    roles: v.array(v.picklist(ROLES)),
    access: v.picklist(CONSOLE_ACCESS),
    sessionExpiresAt: v.pipe(Timestamp, v.description('When the session ends, whatever happens before')),
  }),
);

const Deliveries = schema(() =>
  v.object({
    succeeded: Count,
    failed: Count,
    pending: v.pipe(Count, v.description('Pending or retrying')),
  }),
);
const Groups = schema(() => v.object({ created: Count, failed: Count }));
const Reports = schema(() => v.object({ completed: Count, failed: Count }));

export const ConsoleOverview = schema(() =>
  v.object({
    from: v.pipe(Timestamp, v.description('The start of the first hour shown')),
    to: v.pipe(Timestamp, v.description('When the figures were read')),
    hours: v.pipe(
      v.array(
        v.object({
          hour: v.pipe(Timestamp, v.description('The start of the hour (UTC)')),
          deliveries: Deliveries,
          groups: Groups,
          reports: Reports,
        }),
      ),
      v.description('24 hours, oldest first'),
    ),
    totals: v.object({ deliveries: Deliveries, groups: Groups, reports: Reports }),
    latestEvents: v.pipe(
      v.array(
        v.object({
          eventId: v.string(),
          type: v.picklist(EVENT_TYPES),
          timestamp: Timestamp,
        }),
      ),
      v.description('The 10 latest events of the feed, newest first'),
    ),
    complete: v.pipe(
      v.boolean(),
      v.description('False when the day held more events or deliveries than one read counts (the figures are a floor)'),
    ),
  }),
);

export const ConsoleSignedOut = schema(() => v.object({ signedOut: v.literal(true) }));

/** The console's pages (each its own URL below `/console`); `/console` itself is the Overview. */
export const CONSOLE_PAGES = ['groups', 'reports', 'webhooks', 'events'] as const;
/** Pages with one item's own page below them: a group's, an endpoint's. */
export const CONSOLE_ITEM_PAGES = ['groups', 'webhooks'] as const;

/** Whether the console has the page `/console[/{page}[/{id}]]` (an item's id as the API's ids are written). */
export function isConsolePage(page: string | undefined, id: string | undefined): boolean {
  if (page === undefined) return id === undefined;
  if (id === undefined) return (CONSOLE_PAGES as readonly string[]).includes(page);
  return (CONSOLE_ITEM_PAGES as readonly string[]).includes(page) && /^[A-Za-z0-9_-]{1,128}$/.test(id);
}
