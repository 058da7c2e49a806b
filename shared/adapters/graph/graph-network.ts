import {
  type JoinRequestOutcome,
  type MessagingNetwork,
  type NetworkChannel,
  NetworkError,
  type NetworkGroup,
} from '#shared/ports/messaging-network';

export interface GraphMessagingNetworkOptions {
  /** e.g. `https://graph.facebook.com/v23.0`, without a trailing slash. */
  baseUrl: string;
  /** Budget of one call, body included. @default 5000 */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** Meta's error envelope: `{"error": {"message", "type", "code", "error_subcode"?, "error_data"?, "fbtrace_id"}}`. */
interface GraphError {
  message?: string;
  code?: number;
}

type Json = Record<string, unknown>;

/** A third party's answer is read up to this size (RELIABILITY H-6); anything bigger is unreadable. */
export const MAX_RESPONSE_BYTES = 64 * 1024;
const LIST_PAGE_SIZE = 1024;
/** 10,000 groups per number at 1,024 a page is 10 pages; the cap only stops a server that pages forever. */
const MAX_LIST_PAGES = 50;
/** Throttling codes: the call was refused before doing anything (API, app, Cloud API, group and pair rate limits). */
const RATE_LIMIT_CODES = new Set([4, 80007, 130429, 131208, 131056]);
/** Connection failures that happen before a byte of the request is written. */
const NOT_SENT_CAUSES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * MessagingNetwork over Meta's Graph API. Every failure becomes a NetworkError whose kind tells the caller whether
 * the call may have taken effect. Reads (GET) have no effect, so whatever goes wrong with them is `not-sent`.
 * The access token only ever travels in the Authorization header; it is never part of a URL or an error.
 */
export class GraphMessagingNetwork implements MessagingNetwork {
  readonly #baseUrl: string;
  readonly #timeoutMs: number;
  readonly #fetch: typeof fetch;

  constructor(options: GraphMessagingNetworkOptions) {
    this.#baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#timeoutMs = options.timeoutMs ?? 5_000;
    this.#fetch = options.fetch ?? fetch;
  }

  get callTimeoutSeconds(): number {
    return this.#timeoutMs / 1000;
  }

  async createGroup(
    channel: NetworkChannel,
    input: { subject: string; description?: string; joinApprovalMode: 'approval_required' | 'auto_approve' },
  ): Promise<{ networkRequestId: string }> {
    const path = `/${segment(channel.phoneNumberId)}/groups`;
    const body = await this.#call(channel, 'POST', path, {
      subject: input.subject,
      description: input.description,
      join_approval_mode: input.joinApprovalMode,
    });
    return { networkRequestId: this.#field(body, 'request_id', 'POST', path) };
  }

  async listGroups(channel: NetworkChannel): Promise<NetworkGroup[]> {
    const path = `/${segment(channel.phoneNumberId)}/groups`;
    const groups: NetworkGroup[] = [];
    const seen = new Set<string>();
    let after: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const query = new URLSearchParams({ limit: String(LIST_PAGE_SIZE), ...(after ? { after } : {}) });
      const body = await this.#call(channel, 'GET', `${path}?${query}`);
      const data = body.data as { groups?: unknown } | undefined;
      if (!Array.isArray(data?.groups)) throw unreadable('GET', path, 'no data.groups');
      for (const group of data.groups as Json[]) {
        if (typeof group.id !== 'string') continue;
        groups.push({
          groupId: group.id,
          subject: String(group.subject ?? ''),
          createdAt: isoFromUnix(group.created_at),
        });
      }
      // Only the cursor is taken from `paging`: following `paging.next` verbatim would send the token to any host.
      after = nextCursor(body.paging);
      if (!after || seen.has(after)) return groups;
      seen.add(after);
    }
    return groups;
  }

  async updateGroupSettings(
    channel: NetworkChannel,
    groupId: string,
    settings: { subject?: string; description?: string },
  ): Promise<void> {
    await this.#call(
      channel,
      'POST',
      `/${segment(groupId)}`,
      {
        ...(settings.subject !== undefined ? { subject: settings.subject } : {}),
        ...(settings.description !== undefined ? { description: settings.description } : {}),
      },
      NO_BODY_DOCUMENTED,
    );
  }

  async deleteGroup(channel: NetworkChannel, groupId: string): Promise<void> {
    await this.#call(channel, 'DELETE', `/${segment(groupId)}`);
  }

  async getInviteLink(channel: NetworkChannel, groupId: string): Promise<string> {
    const path = `/${segment(groupId)}/invite_link`;
    return this.#field(await this.#call(channel, 'GET', path), 'invite_link', 'GET', path);
  }

  async resetInviteLink(channel: NetworkChannel, groupId: string): Promise<string> {
    const path = `/${segment(groupId)}/invite_link`;
    return this.#field(await this.#call(channel, 'POST', path, {}), 'invite_link', 'POST', path);
  }

  sendText(
    channel: NetworkChannel,
    to: { groupId: string } | { phoneNumber: string },
    text: string,
  ): Promise<{ networkMessageId: string }> {
    const recipient =
      'groupId' in to
        ? { recipient_type: 'group', to: to.groupId }
        : { recipient_type: 'individual', to: digits(to.phoneNumber) };
    return this.#sendMessage(channel, { ...recipient, type: 'text', text: { body: text } });
  }

  sendGroupInvite(
    channel: NetworkChannel,
    phoneNumber: string,
    groupId: string,
    template: { name: string; language: string },
  ): Promise<{ networkMessageId: string }> {
    // Meta's Template Library utility template: modifying it would cost its utility pricing (WHATSAPP-GROUPS §1.2 #12).
    return this.#sendMessage(channel, {
      recipient_type: 'individual',
      to: digits(phoneNumber),
      type: 'template',
      template: {
        name: template.name,
        language: { code: template.language },
        components: [{ type: 'body', parameters: [{ type: 'group_id', group_id: groupId }] }],
      },
    });
  }

  async removeParticipants(channel: NetworkChannel, groupId: string, users: string[]): Promise<void> {
    await this.#call(
      channel,
      'DELETE',
      `/${segment(groupId)}/participants`,
      { participants: users.map((user) => ({ user })) },
      NO_BODY_DOCUMENTED,
    );
  }

  async approveJoinRequests(
    channel: NetworkChannel,
    groupId: string,
    joinRequestIds: string[],
  ): Promise<JoinRequestOutcome> {
    const body = await this.#call(channel, 'POST', `/${segment(groupId)}/join_requests`, {
      join_requests: joinRequestIds,
    });
    return joinRequestOutcome(joinRequestIds, body.approved_join_requests, body);
  }

  async rejectJoinRequests(
    channel: NetworkChannel,
    groupId: string,
    joinRequestIds: string[],
  ): Promise<JoinRequestOutcome> {
    const body = await this.#call(channel, 'DELETE', `/${segment(groupId)}/join_requests`, {
      join_requests: joinRequestIds,
    });
    return joinRequestOutcome(joinRequestIds, body.rejected_join_requests, body);
  }

  async #sendMessage(channel: NetworkChannel, message: Json): Promise<{ networkMessageId: string }> {
    const path = `/${segment(channel.phoneNumberId)}/messages`;
    const body = await this.#call(channel, 'POST', path, message);
    const id = (body.messages as { id?: unknown }[] | undefined)?.[0]?.id;
    if (typeof id !== 'string') throw unreadable('POST', path, 'no messages[0].id');
    return { networkMessageId: id };
  }

  #field(body: Json, name: string, method: string, path: string): string {
    const value = body[name];
    if (typeof value !== 'string' || !value) throw unreadable(method, path, `no ${name}`);
    return value;
  }

  /** One Graph call; resolves with the JSON object of a 2xx answer, else throws a classified NetworkError. */
  async #call(
    channel: NetworkChannel,
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    body?: Json,
    options: { bodyOptional?: boolean } = {},
  ): Promise<Json> {
    const label = `Graph ${method} ${path.split('?')[0]}`;
    const mutating = method !== 'GET';
    const signal = AbortSignal.timeout(this.#timeoutMs);
    let response: Response;
    try {
      response = await this.#fetch(`${this.#baseUrl}${path}`, {
        method,
        redirect: 'manual',
        signal,
        headers: {
          authorization: `Bearer ${channel.accessToken}`,
          accept: 'application/json',
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        body: body ? JSON.stringify({ messaging_product: 'whatsapp', ...body }) : undefined,
      });
    } catch (error) {
      // fetch validates its arguments before connecting (a token with a line break, say); its message quotes them.
      if (error instanceof TypeError && !error.cause) throw new NetworkError('rejected', `${label}: invalid request`);
      const cause = causeCode(error);
      if (cause && NOT_SENT_CAUSES.has(cause)) throw new NetworkError('not-sent', `${label}: ${cause}`);
      // A timeout or reset cannot tell whether Meta already acted on the request.
      const reason = signal.aborted ? `no answer within ${this.#timeoutMs} ms` : (cause ?? 'connection failed');
      throw new NetworkError(mutating ? 'ambiguous' : 'not-sent', `${label}: ${reason}`);
    }

    const status = response.status;
    const text = await readBounded(response, MAX_RESPONSE_BYTES).catch(() => undefined);
    const json = parseObject(text);
    const graphError = json?.error as GraphError | undefined;
    const code = typeof graphError?.code === 'number' ? graphError.code : undefined;
    const details = { httpStatus: status, ...(code !== undefined ? { code } : {}) };

    if (status === 429 || status === 408 || (code !== undefined && RATE_LIMIT_CODES.has(code))) {
      const retryAfterSeconds = parseRetryAfter(response.headers.get('retry-after'));
      throw new NetworkError('not-sent', `${label}: throttled (HTTP ${status}${code ? `, code ${code}` : ''})`, {
        ...details,
        ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
      });
    }
    if (status >= 200 && status < 300) {
      if (json) return json;
      if (options.bodyOptional) return {};
      throw unreadable(method, path, text === undefined ? 'body too large or cut off' : 'body is not a JSON object');
    }
    if (status >= 400 && status < 500) {
      // Meta's own message, verbatim: the domain records it next to the code on the failed request.
      const message = typeof graphError?.message === 'string' ? graphError.message : `${label}: HTTP ${status}`;
      throw new NetworkError('rejected', message, details);
    }
    // 5xx, and any 1xx/3xx: a redirect is never followed, so the call's fate is unknown.
    throw new NetworkError(mutating ? 'ambiguous' : 'not-sent', `${label}: HTTP ${status}`, details);
  }
}

/** Calls whose success Meta documents without a body (CONTRACT §16): any 2xx is success, whatever its body. */
const NO_BODY_DOCUMENTED = { bodyOptional: true };

function unreadable(method: string, path: string, reason: string): NetworkError {
  return new NetworkError(
    method === 'GET' ? 'not-sent' : 'ambiguous',
    `Graph ${method} ${path.split('?')[0]}: unreadable answer (${reason})`,
  );
}

/** Reads at most `limit` bytes and cancels the stream beyond that; `undefined` when the body is too large. */
async function readBounded(response: Response, limit: number): Promise<string | undefined> {
  if (Number(response.headers.get('content-length') ?? 0) > limit) {
    await response.body?.cancel().catch(() => undefined);
    return undefined;
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseObject(text: string | undefined): Json | undefined {
  if (!text) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
  } catch {
    return undefined;
  }
}

/** undici's fetch rejects with `TypeError('fetch failed')` whose cause carries the socket error's code. */
function causeCode(error: unknown): string | undefined {
  const cause = (error as { cause?: { code?: unknown; errors?: { code?: unknown }[] } } | undefined)?.cause;
  const code = cause?.code ?? cause?.errors?.[0]?.code;
  return typeof code === 'string' ? code : undefined;
}

function parseRetryAfter(value: string | null): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

function nextCursor(paging: unknown): string | undefined {
  const { cursors, next } = (paging ?? {}) as { cursors?: { after?: unknown }; next?: unknown };
  if (typeof next !== 'string' || !next) return undefined;
  if (typeof cursors?.after === 'string' && cursors.after) return cursors.after;
  try {
    return new URL(next).searchParams.get('after') ?? undefined;
  } catch {
    return undefined;
  }
}

/** `created_at` is unix seconds, as a number or a numeric string; an ISO string is taken as it is. */
function isoFromUnix(value: unknown): string | undefined {
  if (typeof value !== 'number' && typeof value !== 'string') return undefined;
  const at = typeof value === 'number' || /^\d+$/.test(value.trim()) ? Number(value) * 1000 : Date.parse(value);
  return Number.isFinite(at) && Math.abs(at) <= 8.64e15 ? new Date(at).toISOString() : undefined;
}

/**
 * Meta lists the ids it handled and the ones it could not, each with `errors[]`; an id in neither list (or a call
 * that failed as a whole, with top-level `errors[]`) is reported failed, so every id asked about has an outcome.
 */
function joinRequestOutcome(requested: string[], handled: unknown, body: Json): JoinRequestOutcome {
  const succeeded = (Array.isArray(handled) ? handled : [])
    .map((item) => (typeof item === 'string' ? item : (item as { join_request_id?: unknown })?.join_request_id))
    .filter((id): id is string => typeof id === 'string');
  const failed: JoinRequestOutcome['failed'] = [];
  for (const item of (Array.isArray(body.failed_join_requests) ? body.failed_join_requests : []) as Json[]) {
    if (typeof item?.join_request_id !== 'string') continue;
    const error = (item.errors as GraphError[] | undefined)?.[0];
    failed.push({
      joinRequestId: item.join_request_id,
      ...(typeof error?.code === 'number' ? { code: error.code } : {}),
      message: error?.message ?? 'join request failed',
    });
  }
  const topError = (body.errors as GraphError[] | undefined)?.[0];
  const known = new Set([...succeeded, ...failed.map((item) => item.joinRequestId)]);
  for (const id of requested) {
    if (known.has(id)) continue;
    failed.push({
      joinRequestId: id,
      ...(typeof topError?.code === 'number' ? { code: topError.code } : {}),
      message: topError?.message ?? 'no outcome reported by the network',
    });
  }
  return { succeeded, failed };
}

const segment = (id: string) => encodeURIComponent(id);
const digits = (phoneNumber: string) => phoneNumber.replace(/\D/g, '');
