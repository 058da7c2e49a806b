import { type components, createWpCrmClient, type operations, type WpCrmClient } from '@wp-crm/client';
import { currentToken, sessionLost } from './session.ts';

export type Problem = components['schemas']['Problem'];
/** The JSON body of an operation's success answer. */
type Success<O extends keyof operations> = operations[O]['responses'] extends infer R
  ? R extends { 200: { content: { 'application/json': infer B } } }
    ? B
    : R extends { 202: { content: { 'application/json': infer B } } }
      ? B
      : never
  : never;

/** The answers the pages name. */
export interface Schemas {
  ConsoleOverview: Success<'getConsoleOverview'>;
  GroupRequestView: Success<'getGroupCreationStatus'>;
  ReportView: Success<'getReport'>;
}

/** A refusal of the API, with its problem document when it sent one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Partial<Problem> | undefined,
  ) {
    super(problem?.detail ?? problem?.title ?? `The service answered ${status}`);
  }
}

/** Every call of the console: the public API through the typed client, with the session's in-memory token. */
export const api: WpCrmClient = createWpCrmClient({ baseUrl: location.origin, token: () => currentToken() });

/** A client for the session routes, which authenticate by their cookie alone. */
export const publicApi: WpCrmClient = createWpCrmClient({ baseUrl: location.origin });

/**
 * The body of a successful call, or an ApiError. A 401 means the session ended (signed out elsewhere, expired,
 * revoked): the console shows its sign-in page.
 */
export async function call<T>(request: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await request;
  if (response.ok) return data as T;
  if (response.status === 401) sessionLost('signed-out');
  throw new ApiError(response.status, error as Partial<Problem> | undefined);
}

/** The organisation id of the session, for the paths. */
export const path = <T extends object>(orgId: string, rest?: T) => ({ path: { orgId, ...rest } });
