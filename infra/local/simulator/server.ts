import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { envelope, GraphFailure, ids, unixNow, webhookError } from './meta.ts';
import { type WebhookDelivery, WebhookSender } from './webhooks.ts';

/** The Graph API version the simulator serves under, as in `https://graph.facebook.com/v23.0`. */
export const GRAPH_VERSION = 'v23.0';

export interface SimulatorOptions {
  /** The service's inbound webhook URL, where signed notifications are sent. Read at send time. */
  webhookUrl?: string;
  appSecret: string;
  /** Delay before a notification is sent: Meta's confirmations are asynchronous. @default 100 */
  webhookDelayMs?: number;
  /** Delivery attempts per notification (Meta retries for 7 days; locally a few tries). @default 3 */
  webhookAttempts?: number;
  /** Wait before the first retry, doubled for each further one. @default 200 */
  webhookRetryDelayMs?: number;
  /** `entry[].id` of notifications. @default '100000000000900' */
  wabaId?: string;
  /** `metadata.display_phone_number` per phone-number id; unknown ids get a number derived from the id. */
  displayPhoneNumbers?: Record<string, string>;
  /** Added to every Graph answer, so that concurrent calls overlap (RELIABILITY H-7). @default 0 */
  latencyMs?: number;
}

/** How the next `POST /{phoneNumberId}/groups` ends. Unscripted creates succeed. */
export interface GroupScript {
  /**
   * `success`: group + `group_create` notification after the webhook delay. `delay`: the same after `delayMs`.
   * `fail`: no group, a `group_create` notification with `errors[]`. `silent`: no notification (and no group unless
   * `groupCreated`). `reject`: a synchronous Graph error, no request id.
   */
  outcome: 'success' | 'fail' | 'silent' | 'delay' | 'reject';
  /** For `fail` / `reject`. @default 131215 */
  code?: number;
  message?: string;
  /** For `delay`. @default 2000 */
  delayMs?: number;
  /** For `silent`: the group exists (and is listed) although no notification comes. */
  groupCreated?: boolean;
}

/** How the next `POST /{groupId}` (settings update) ends: the listed settings fail in its notification. */
export interface SettingsScript {
  failFields: ('subject' | 'description')[];
  /** The error code of each failed setting. @default 100 */
  code?: number;
  message?: string;
}

export const FAULT_MODES = [
  'http500',
  'http429',
  'code131208',
  'code131056',
  'timeout-after-commit',
  'reset-after-commit',
  'hang',
] as const;
export type FaultMode = (typeof FAULT_MODES)[number];

/** A transport fault for the next `times` Graph calls matching `method` and `path` (a regex on `/{id}/{edge}`). */
export interface FaultSpec {
  method?: string;
  path?: string;
  mode: FaultMode;
  /** Only calls whose JSON body has this `to` (a message's recipient, e.g. one group: RELIABILITY H-2). */
  to?: string;
  /** @default 1 */
  times?: number;
  /** Sent as Retry-After with http429 / code131208. */
  retryAfterSeconds?: number;
}

export interface GroupView {
  groupId: string;
  phoneNumberId: string;
  requestId: string;
  subject: string;
  description?: string;
  joinApprovalMode: 'approval_required' | 'auto_approve';
  createdAt: string;
  inviteLink: string;
  /** wa_ids, the business excluded. */
  participants: string[];
  joinRequests: { joinRequestId: string; waId: string; createdAt: string }[];
  suspended: boolean;
}

export type MessageStatus = 'accepted' | 'sent' | 'delivered' | 'read' | 'failed';

export interface MessageView {
  messageId: string;
  phoneNumberId: string;
  recipientType: 'group' | 'individual';
  to: string;
  type: string;
  text?: string;
  template?: unknown;
  status: MessageStatus;
  createdAt: string;
}

export interface RequestLogEntry {
  at: string;
  method: string;
  /** Below the version, e.g. `/100000000000001/groups`. */
  path: string;
  query: Record<string, string>;
  body: unknown;
  /** Absent when no answer was written (hang, timeout-after-commit, reset-after-commit). */
  status?: number;
  fault?: FaultMode;
}

/** A control-API refusal (unknown group, not a participant, …). */
export class SimulatorError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: number,
  ) {
    super(message);
  }
}

interface Group {
  id: string;
  phoneNumberId: string;
  requestId: string;
  subject: string;
  description?: string;
  joinApprovalMode: 'approval_required' | 'auto_approve';
  createdAt: number;
  inviteLink: string;
  participants: Map<string, number>;
  joinRequests: Map<string, { waId: string; createdAt: number }>;
  /** Removed by the business: Meta does not let them back in through the link. */
  removed: Set<string>;
  suspended: boolean;
}

interface Message extends Omit<MessageView, 'createdAt'> {
  createdAt: number;
}

type Json = Record<string, unknown>;
type Reply = { status: number; body: unknown; headers?: Record<string, string> };

const MAX_PARTICIPANTS = 8;
const MAX_GROUPS_PER_NUMBER = 10_000;
const MAX_BODY_BYTES = 1024 * 1024;
const DEFAULT_DELAY_OUTCOME_MS = 2_000;
const CONTROL_PREFIX = '/_simulator';

/**
 * A WhatsApp Cloud API (Graph) simulator on loopback: the service's Graph adapter reaches it through
 * WHATSAPP_GRAPH_URL exactly as it would reach Meta. It keeps groups, join requests and sent messages per phone-number
 * id, answers with Meta's shapes and error envelope, and sends signed notifications to `webhookUrl`. Outcomes and
 * faults are scripted through `/_simulator/…` (README.md) or the same methods in-process.
 */
export class WhatsAppSimulator {
  /** Every Graph request received (the access token is not recorded). */
  readonly requestLog: RequestLogEntry[] = [];
  #server: Server;
  #groups = new Map<string, Group>();
  #messages = new Map<string, Message>();
  #scripts: GroupScript[] = [];
  #settingsScripts: SettingsScript[] = [];
  #faults: (FaultSpec & { pattern?: RegExp; remaining: number })[] = [];
  #webhooks: WebhookSender;
  #closed = false;
  #latencyTimers = new Set<NodeJS.Timeout>();
  #inFlight = 0;
  #maxInFlight = 0;

  constructor(readonly options: SimulatorOptions) {
    this.#webhooks = new WebhookSender(() => ({
      webhookUrl: this.options.webhookUrl,
      appSecret: this.options.appSecret,
      attempts: this.options.webhookAttempts ?? 3,
      retryDelayMs: this.options.webhookRetryDelayMs ?? 200,
    }));
    this.#server = createServer((request, response) => {
      void this.#handle(request, response).catch((error: unknown) => {
        if (!response.headersSent) send(response, 500, { error: { message: (error as Error).message } });
      });
    });
  }

  async listen(port: number): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, '127.0.0.1', resolve);
    });
    return (this.#server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const timer of this.#latencyTimers) clearTimeout(timer);
    await this.#webhooks.cancel();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  // Control surface, also served over HTTP under /_simulator.

  scriptNextGroup(script: GroupScript): void {
    if (!['success', 'fail', 'silent', 'delay', 'reject'].includes(script?.outcome)) {
      throw new SimulatorError(400, 'outcome must be success, fail, silent, delay or reject');
    }
    this.#scripts.push({ ...script });
  }

  scriptNextSettings(script: SettingsScript): void {
    const fields = script?.failFields;
    if (!Array.isArray(fields) || !fields.every((field) => field === 'subject' || field === 'description')) {
      throw new SimulatorError(400, 'failFields must list subject and/or description');
    }
    this.#settingsScripts.push({ ...script, failFields: [...fields] });
  }

  /** Meta suspends a group for a policy violation: `group_suspend`; messages to it fail with 131207. */
  suspend(groupId: string): void {
    const group = this.#requireGroup(groupId);
    if (group.suspended) throw new SimulatorError(409, 'the group is suspended already');
    group.suspended = true;
    this.#notifyGroup(group, 'group_status_update', { type: 'group_suspend' });
  }

  /** Meta lifts the suspension: `group_suspend_cleared`. */
  clearSuspension(groupId: string): void {
    const group = this.#requireGroup(groupId);
    if (!group.suspended) throw new SimulatorError(409, 'the group is not suspended');
    group.suspended = false;
    this.#notifyGroup(group, 'group_status_update', { type: 'group_suspend_cleared' });
  }

  addFault(fault: FaultSpec): void {
    if (!FAULT_MODES.includes(fault?.mode)) throw new SimulatorError(400, `mode must be one of ${FAULT_MODES}`);
    let pattern: RegExp | undefined;
    try {
      pattern = fault.path ? new RegExp(fault.path) : undefined;
    } catch {
      throw new SimulatorError(400, `path is not a valid regular expression: ${fault.path}`);
    }
    this.#faults.push({ ...fault, pattern, remaining: Math.max(1, Math.floor(fault.times ?? 1)) });
  }

  /** Every notification from now on is sent `times` extra times (0 stops the replays). */
  setDuplicates(times: number): void {
    if (!Number.isInteger(times) || times < 0) throw new SimulatorError(400, 'times must be a whole number ≥ 0');
    this.#webhooks.duplicates = times;
  }

  groups(phoneNumberId?: string): GroupView[] {
    return [...this.#groups.values()]
      .filter((group) => phoneNumberId === undefined || group.phoneNumberId === phoneNumberId)
      .map(groupView);
  }

  group(groupId: string): GroupView | undefined {
    const group = this.#groups.get(groupId);
    return group && groupView(group);
  }

  get messages(): MessageView[] {
    return [...this.#messages.values()].map((message) => ({
      ...message,
      createdAt: new Date(message.createdAt * 1000).toISOString(),
    }));
  }

  /** Every notification and its delivery state. */
  get webhookLog(): readonly WebhookDelivery[] {
    return this.#webhooks.log;
  }

  /** A user asks to join a group that requires approval: `group_join_request_created`. */
  requestToJoin(groupId: string, waIdInput: string): string {
    const group = this.#requireGroup(groupId);
    const waId = toWaId(waIdInput);
    if (group.joinApprovalMode !== 'approval_required') {
      throw new SimulatorError(409, 'the group approves joiners automatically; use join instead');
    }
    if (group.participants.has(waId)) throw new SimulatorError(409, `${waId} is already a participant`);
    const pending = [...group.joinRequests].find(([, request]) => request.waId === waId);
    if (pending) return pending[0];
    const joinRequestId = ids.joinRequest();
    group.joinRequests.set(joinRequestId, { waId, createdAt: nowSeconds() });
    this.#notifyGroup(group, 'group_participants_update', {
      type: 'group_join_request_created',
      reason: 'invite_link',
      join_request_id: joinRequestId,
      wa_id: waId,
    });
    return joinRequestId;
  }

  /** The user withdraws a join request: `group_join_request_revoked`. */
  revokeJoinRequest(groupId: string, joinRequestId: string): void {
    const group = this.#requireGroup(groupId);
    const request = group.joinRequests.get(joinRequestId);
    if (!request) throw new SimulatorError(404, `no join request ${joinRequestId}`, 131213);
    group.joinRequests.delete(joinRequestId);
    this.#notifyGroup(group, 'group_participants_update', {
      type: 'group_join_request_revoked',
      reason: 'invite_link',
      join_request_id: joinRequestId,
      wa_id: request.waId,
    });
  }

  /** A user joins through the invite link: `group_participants_add`. */
  join(groupId: string, waIdInput: string): void {
    const group = this.#requireGroup(groupId);
    const waId = toWaId(waIdInput);
    if (group.participants.has(waId)) throw new SimulatorError(409, `${waId} is already a participant`);
    if (group.removed.has(waId)) {
      throw new SimulatorError(409, `${waId} was removed by the business and cannot rejoin through the invite link`);
    }
    if (group.participants.size >= MAX_PARTICIPANTS) throw new SimulatorError(409, 'the group is full', 131204);
    group.participants.set(waId, nowSeconds());
    for (const [id, request] of group.joinRequests) if (request.waId === waId) group.joinRequests.delete(id);
    this.#notifyGroup(group, 'group_participants_update', {
      type: 'group_participants_add',
      reason: 'invite_link',
      added_participants: [{ wa_id: waId }],
    });
  }

  /** A participant leaves: `group_participants_remove` initiated by the participant. */
  leave(groupId: string, waIdInput: string): void {
    const group = this.#requireGroup(groupId);
    const waId = toWaId(waIdInput);
    if (!group.participants.delete(waId)) throw new SimulatorError(409, `${waId} is not a participant`, 131212);
    this.#notifyGroup(group, 'group_participants_update', {
      type: 'group_participants_remove',
      removed_participants: [{ wa_id: waId }],
      initiated_by: 'participant',
    });
  }

  /** A participant writes to the group: a `messages` notification with `group_id`. Returns the wamid. */
  receiveMessage(groupId: string, input: { from: string; text: string; name?: string }): string {
    const group = this.#requireGroup(groupId);
    const from = toWaId(input.from);
    if (typeof input.text !== 'string' || !input.text) throw new SimulatorError(400, 'text is required');
    if (!group.participants.has(from)) throw new SimulatorError(409, `${from} is not a participant; join first`);
    const id = ids.message();
    this.#notify(group.phoneNumberId, 'messages', {
      contacts: [{ profile: { name: input.name ?? `Participant ${from.slice(-4)}` }, wa_id: from }],
      messages: [{ from, id, timestamp: unixNow(), type: 'text', text: { body: input.text }, group_id: group.id }],
    });
    return id;
  }

  /** Moves a sent message to `status` (e.g. `read`, or `failed` with a code) and notifies it. */
  setMessageStatus(messageId: string, status: 'sent' | 'delivered' | 'read' | 'failed', code = 131000): void {
    const message = this.#messages.get(messageId);
    if (!message) throw new SimulatorError(404, `no message ${messageId}`);
    if (!['sent', 'delivered', 'read', 'failed'].includes(status)) {
      throw new SimulatorError(400, 'status must be sent, delivered, read or failed');
    }
    this.#notifyStatus(message, status, this.#delay(), status === 'failed' ? code : undefined);
  }

  state() {
    const deliveries = this.#webhooks.log;
    const count = (state: WebhookDelivery['state']) => deliveries.filter((item) => item.state === state).length;
    return {
      groups: this.groups(),
      messages: this.messages,
      scriptedGroups: [...this.#scripts],
      scriptedSettings: [...this.#settingsScripts],
      faults: this.#faults.map(({ pattern: _pattern, ...fault }) => fault),
      duplicates: this.#webhooks.duplicates,
      counts: {
        groups: this.#groups.size,
        messages: this.#messages.size,
        requests: this.requestLog.length,
        graphInFlight: this.#inFlight,
        graphMaxInFlight: this.#maxInFlight,
        webhooks: {
          scheduled: this.#webhooks.pendingCount,
          delivered: count('delivered'),
          failed: count('failed'),
          dropped: count('dropped'),
        },
      },
    };
  }

  /** Resolves when no notification is scheduled or in flight. */
  flushWebhooks(): Promise<void> {
    return this.#webhooks.flush();
  }

  /** Forgets everything: state, scripts, faults, duplicates, logs and scheduled notifications. */
  async reset(): Promise<void> {
    await this.#webhooks.cancel();
    this.#webhooks.log.length = 0;
    this.#webhooks.duplicates = 0;
    this.#groups.clear();
    this.#messages.clear();
    this.#scripts.length = 0;
    this.#settingsScripts.length = 0;
    this.#faults.length = 0;
    this.requestLog.length = 0;
    this.#maxInFlight = this.#inFlight;
  }

  // HTTP

  async #handle(request: IncomingMessage, response: ServerResponse) {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const method = (request.method ?? 'GET').toUpperCase();
    const raw = await readBody(request);
    if (raw === undefined) return send(response, 413, { error: { message: 'body too large' } });
    if (url.pathname.startsWith(`${CONTROL_PREFIX}/`)) return this.#handleControl(method, url.pathname, raw, response);

    const prefix = `/${GRAPH_VERSION}/`;
    if (!url.pathname.startsWith(prefix)) {
      const failure = new GraphFailure(404, 100, { details: `the simulator serves ${prefix}…, not ${url.pathname}` });
      return send(response, failure.status, failure.body);
    }
    const path = url.pathname.slice(prefix.length - 1);
    const entry: RequestLogEntry = {
      at: new Date().toISOString(),
      method,
      path,
      query: Object.fromEntries(url.searchParams),
      body: parseJson(raw) ?? (raw || undefined),
    };
    this.requestLog.push(entry);
    this.#maxInFlight = Math.max(this.#maxInFlight, ++this.#inFlight);
    response.once('close', () => this.#inFlight--);
    const fault = this.#takeFault(method, path, entry.body);
    entry.fault = fault?.mode;
    if (fault?.mode === 'hang') return;
    if (this.options.latencyMs) await this.#sleep(this.options.latencyMs);

    let reply: Reply;
    try {
      if (fault) throwTransportFault(fault);
      const origin = `http://${request.headers.host ?? '127.0.0.1'}/${GRAPH_VERSION}`;
      reply = this.#graph(method, path, url.searchParams, request.headers.authorization, raw, origin);
    } catch (error) {
      if (!(error instanceof GraphFailure)) throw error;
      reply = { status: error.status, body: error.body, headers: error.headers };
    }
    // The action is done (webhooks included); only the answer is lost, as in an indeterminate outcome.
    if (fault?.mode === 'timeout-after-commit') return;
    if (fault?.mode === 'reset-after-commit') return void request.socket.destroy();
    entry.status = reply.status;
    send(response, reply.status, reply.body, reply.headers);
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#latencyTimers.delete(timer);
        resolve();
      }, ms);
      timer.unref();
      this.#latencyTimers.add(timer);
    });
  }

  #takeFault(method: string, path: string, body: unknown) {
    const index = this.#faults.findIndex(
      (fault) =>
        (!fault.method || fault.method.toUpperCase() === method) &&
        (!fault.pattern || fault.pattern.test(path)) &&
        (fault.to === undefined || (body as { to?: unknown } | undefined)?.to === fault.to),
    );
    const fault = this.#faults[index];
    if (!fault) return undefined;
    if (--fault.remaining <= 0) this.#faults.splice(index, 1);
    return fault;
  }

  // Graph API

  #graph(
    method: string,
    path: string,
    query: URLSearchParams,
    authorization: string | undefined,
    raw: string,
    origin: string,
  ): Reply {
    if (!/^Bearer\s+\S+/.test(authorization ?? '')) {
      throw new GraphFailure(401, 190, { message: 'Invalid OAuth access token - Cannot parse access token' });
    }
    const body = raw ? parseJson(raw) : {};
    if (!body) throw new GraphFailure(400, 100, { details: 'the request body is not a JSON object' });
    const [id = '', edge = '', ...rest] = path.split('/').filter(Boolean).map(decodeSegment);
    const route = rest.length ? '' : `${method} ${edge}`;
    switch (route) {
      case 'POST groups':
        return this.#createGroup(id, body);
      case 'GET groups':
        return this.#listGroups(id, query, origin);
      case 'POST messages':
        return this.#sendMessage(id, body);
      case 'GET ':
        return groupInfo(this.#graphGroup(id), query);
      case 'POST ':
        return this.#updateSettings(this.#graphGroup(id), body);
      case 'DELETE ':
        return this.#deleteGroup(this.#graphGroup(id));
      case 'GET invite_link':
        return inviteLinkReply(this.#graphGroup(id));
      case 'POST invite_link': {
        requireProduct(body);
        const group = this.#graphGroup(id);
        group.inviteLink = ids.inviteLink();
        return inviteLinkReply(group);
      }
      case 'GET join_requests':
        return joinRequestsReply(this.#graphGroup(id));
      case 'POST join_requests':
        return this.#approveJoinRequests(this.#graphGroup(id), body);
      case 'DELETE join_requests':
        return this.#rejectJoinRequests(this.#graphGroup(id), body);
      case 'DELETE participants':
        return this.#removeParticipants(this.#graphGroup(id), body);
      default:
        throw new GraphFailure(400, 100, {
          message: `Unsupported ${method.toLowerCase()} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation`,
        });
    }
  }

  #createGroup(phoneNumberId: string, body: Json): Reply {
    requireProduct(body);
    const subject = typeof body.subject === 'string' ? body.subject.trim() : '';
    if (!subject) throw invalid('subject is required');
    if ([...subject].length > 128) throw invalid('subject must be at most 128 characters');
    const description = body.description;
    if (description !== undefined && (typeof description !== 'string' || [...description].length > 2048)) {
      throw invalid('description must be a string of at most 2048 characters');
    }
    const joinApprovalMode = body.join_approval_mode ?? 'auto_approve';
    if (joinApprovalMode !== 'auto_approve' && joinApprovalMode !== 'approval_required') {
      throw invalid('join_approval_mode must be approval_required or auto_approve');
    }
    if (this.groups(phoneNumberId).length >= MAX_GROUPS_PER_NUMBER) throw new GraphFailure(400, 131211);

    const script = this.#scripts.shift() ?? { outcome: 'success' };
    if (script.outcome === 'reject') {
      throw new GraphFailure(400, script.code ?? 131215, script.message ? { message: script.message } : {});
    }
    const requestId = ids.request();
    const reply = { status: 200, body: { messaging_product: 'whatsapp', request_id: requestId } };
    if (script.outcome === 'fail') {
      const code = script.code ?? 131215;
      this.#notify(phoneNumberId, 'group_lifecycle_update', {
        groups: [
          {
            timestamp: unixNow(),
            type: 'group_create',
            subject,
            description,
            request_id: requestId,
            errors: [webhookError(code, script.message, script.message)],
          },
        ],
      });
      return reply;
    }
    if (script.outcome === 'silent' && !script.groupCreated) return reply;

    const group: Group = {
      id: ids.group(),
      phoneNumberId,
      requestId,
      subject,
      description: description as string | undefined,
      joinApprovalMode,
      createdAt: nowSeconds(),
      inviteLink: ids.inviteLink(),
      participants: new Map(),
      joinRequests: new Map(),
      removed: new Set(),
      suspended: false,
    };
    this.#groups.set(group.id, group);
    if (script.outcome !== 'silent') {
      const delay = script.outcome === 'delay' ? (script.delayMs ?? DEFAULT_DELAY_OUTCOME_MS) : this.#delay();
      this.#notifyGroup(
        group,
        'group_lifecycle_update',
        {
          type: 'group_create',
          request_id: requestId,
          subject,
          invite_link: group.inviteLink,
          join_approval_mode: joinApprovalMode,
        },
        delay,
      );
    }
    return reply;
  }

  #listGroups(phoneNumberId: string, query: URLSearchParams, origin: string): Reply {
    const limit = query.has('limit') ? Number(query.get('limit')) : 25;
    if (!Number.isInteger(limit) || limit < 1 || limit > 1024) throw invalid('limit must be between 1 and 1024');
    const all = [...this.#groups.values()].filter((group) => group.phoneNumberId === phoneNumberId);
    const after = query.get('after');
    const before = query.get('before');
    let start = 0;
    let end = limit;
    if (after) [start, end] = [decodeCursor(after), decodeCursor(after) + limit];
    else if (before) [start, end] = [Math.max(0, decodeCursor(before) - limit), decodeCursor(before)];
    start = Math.min(start, all.length);
    end = Math.min(end, all.length);
    const page = (cursor: string, key: 'after' | 'before') =>
      `${origin}/${phoneNumberId}/groups?${new URLSearchParams({ limit: String(limit), [key]: cursor })}`;
    return {
      status: 200,
      body: {
        data: {
          groups: all.slice(start, end).map((group) => ({
            id: group.id,
            subject: group.subject,
            created_at: group.createdAt,
          })),
        },
        paging: {
          cursors: { before: encodeCursor(start), after: encodeCursor(end) },
          ...(start > 0 ? { previous: page(encodeCursor(start), 'before') } : {}),
          ...(end < all.length ? { next: page(encodeCursor(end), 'after') } : {}),
        },
      },
    };
  }

  /**
   * POST /{groupId}: subject and/or description. Meta answers at once and reports per setting in
   * `group_settings_update`; a setting scripted to fail keeps its old value and carries `errors[]`.
   */
  #updateSettings(group: Group, body: Json): Reply {
    requireProduct(body);
    const { subject, description } = body;
    if (subject === undefined && description === undefined) throw invalid('give subject or description');
    if (subject !== undefined && (typeof subject !== 'string' || !subject.trim() || [...subject.trim()].length > 128)) {
      throw invalid('subject must be 1 to 128 characters after trimming');
    }
    if (description !== undefined && (typeof description !== 'string' || [...description].length > 2048)) {
      throw invalid('description must be a string of at most 2048 characters');
    }
    if (group.suspended) throw new GraphFailure(403, 131207);
    const script = this.#settingsScripts.shift();
    const result = (field: 'subject' | 'description', text: string) => {
      const failed = script?.failFields.includes(field) ?? false;
      if (!failed) {
        if (field === 'subject') group.subject = text;
        else group.description = text;
      }
      return {
        text,
        update_successful: !failed,
        ...(failed ? { errors: [webhookError(script?.code ?? 100, script?.message, script?.message)] } : {}),
      };
    };
    this.#notifyGroup(group, 'group_settings_update', {
      type: 'group_settings_update',
      request_id: ids.request(),
      ...(typeof subject === 'string' ? { group_subject: result('subject', subject.trim()) } : {}),
      ...(typeof description === 'string' ? { group_description: result('description', description) } : {}),
    });
    return { status: 200, body: { success: true } };
  }

  #deleteGroup(group: Group): Reply {
    this.#groups.delete(group.id);
    this.#notifyGroup(group, 'group_lifecycle_update', { type: 'group_delete', request_id: ids.request() });
    return { status: 200, body: { success: true } };
  }

  #approveJoinRequests(group: Group, body: Json): Reply {
    const approved: string[] = [];
    const failed: Json[] = [];
    const added: Json[] = [];
    for (const joinRequestId of joinRequestIds(body)) {
      const request = group.joinRequests.get(joinRequestId);
      const code = !request ? 131213 : group.participants.size >= MAX_PARTICIPANTS ? 131204 : undefined;
      if (code || !request) {
        failed.push({ join_request_id: joinRequestId, errors: [webhookError(code ?? 131213)] });
        continue;
      }
      group.joinRequests.delete(joinRequestId);
      group.participants.set(request.waId, nowSeconds());
      approved.push(joinRequestId);
      added.push({ input: request.waId, wa_id: request.waId });
    }
    if (added.length) {
      this.#notifyGroup(group, 'group_participants_update', {
        type: 'group_participants_add',
        reason: 'invite_link',
        added_participants: added,
      });
    }
    return {
      status: 200,
      body: {
        messaging_product: 'whatsapp',
        approved_join_requests: approved,
        ...(failed.length ? { failed_join_requests: failed } : {}),
      },
    };
  }

  #rejectJoinRequests(group: Group, body: Json): Reply {
    const rejected: string[] = [];
    const failed: Json[] = [];
    for (const joinRequestId of joinRequestIds(body)) {
      if (group.joinRequests.delete(joinRequestId)) rejected.push(joinRequestId);
      else failed.push({ join_request_id: joinRequestId, errors: [webhookError(131213)] });
    }
    return {
      status: 200,
      body: {
        messaging_product: 'whatsapp',
        rejected_join_requests: rejected,
        ...(failed.length ? { failed_join_requests: failed } : {}),
      },
    };
  }

  #removeParticipants(group: Group, body: Json): Reply {
    requireProduct(body);
    const list = body.participants;
    if (!Array.isArray(list) || list.length === 0) throw invalid('participants must be a non-empty array');
    if (list.length > MAX_PARTICIPANTS) throw new GraphFailure(400, 131204);
    const users = list.map((item) => (item as Json)?.user);
    if (!users.every((user): user is string => typeof user === 'string' && user !== '')) {
      throw invalid('every participant needs a user');
    }
    if (new Set(users.map(toWaIdLoose)).size !== users.length) throw new GraphFailure(400, 131202);
    const removed: Json[] = [];
    const failed: Json[] = [];
    for (const user of users) {
      const waId = toWaIdLoose(user);
      if (group.participants.delete(waId)) {
        group.removed.add(waId);
        removed.push({ input: user });
      } else {
        failed.push({ input: user, errors: [webhookError(131212)] });
      }
    }
    this.#notifyGroup(group, 'group_participants_update', {
      type: 'group_participants_remove',
      request_id: ids.request(),
      ...(removed.length ? { removed_participants: removed } : {}),
      ...(failed.length
        ? { failed_participants: failed, errors: [webhookError(removed.length ? 131201 : 131212)] }
        : {}),
      initiated_by: 'business',
    });
    return { status: 200, body: { success: true } };
  }

  #sendMessage(phoneNumberId: string, body: Json): Reply {
    requireProduct(body);
    const recipientType = body.recipient_type ?? 'individual';
    const to = body.to;
    if (typeof to !== 'string' || !to) throw invalid('to is required');
    if (recipientType === 'group') {
      const group = this.#groups.get(to);
      if (group?.phoneNumberId !== phoneNumberId) throw new GraphFailure(400, 131041);
      // A group holding only the business cannot be messaged (WHATSAPP-GROUPS §1.2).
      if (group.participants.size === 0) throw new GraphFailure(400, 131020);
      if (group.suspended) throw new GraphFailure(403, 131207);
    } else if (recipientType !== 'individual' || !/^\+?\d{6,15}$/.test(to)) {
      throw invalid('recipient_type must be individual (to: a phone number) or group (to: a group id)');
    }
    const type = body.type ?? 'text';
    const message: Message = {
      messageId: ids.message(),
      phoneNumberId,
      recipientType,
      to: recipientType === 'group' ? to : toWaIdLoose(to),
      type: String(type),
      status: 'accepted',
      createdAt: nowSeconds(),
    };
    if (type === 'text') {
      const text = (body.text as Json | undefined)?.body;
      if (typeof text !== 'string' || !text || [...text].length > 4096) {
        throw invalid('text.body must be 1 to 4096 characters');
      }
      message.text = text;
    } else if (type === 'template') {
      this.#checkTemplate(phoneNumberId, body.template as Json | undefined);
      message.template = body.template;
    } else {
      throw invalid(`the simulator sends text and template messages, not ${String(type)}`);
    }
    this.#messages.set(message.messageId, message);
    this.#notifyStatus(message, 'sent', this.#delay());
    this.#notifyStatus(message, 'delivered', 2 * this.#delay());
    return {
      status: 200,
      body: {
        messaging_product: 'whatsapp',
        ...(recipientType === 'individual' ? { contacts: [{ input: to, wa_id: message.to }] } : {}),
        messages: [{ id: message.messageId, ...(type === 'template' ? { message_status: 'accepted' } : {}) }],
      },
    };
  }

  #checkTemplate(phoneNumberId: string, template: Json | undefined) {
    if (typeof template?.name !== 'string' || typeof (template.language as Json | undefined)?.code !== 'string') {
      throw invalid('template.name and template.language.code are required');
    }
    if (template.name !== 'group_invite_link') return;
    const components = Array.isArray(template.components) ? (template.components as Json[]) : [];
    const parameter = components
      .flatMap((component) => (Array.isArray(component.parameters) ? (component.parameters as Json[]) : []))
      .find((item) => item.type === 'group_id');
    const group = typeof parameter?.group_id === 'string' ? this.#groups.get(parameter.group_id) : undefined;
    if (group?.phoneNumberId !== phoneNumberId) throw new GraphFailure(400, 131041);
  }

  #graphGroup(groupId: string): Group {
    const group = this.#groups.get(groupId);
    if (!group) throw new GraphFailure(400, 131041);
    return group;
  }

  #requireGroup(groupId: string): Group {
    const group = this.#groups.get(groupId);
    if (!group) throw new SimulatorError(404, `no group ${groupId}`, 131041);
    return group;
  }

  // Notifications

  #delay(): number {
    return this.options.webhookDelayMs ?? 100;
  }

  #notify(phoneNumberId: string, field: string, value: Json, delayMs = this.#delay(), onDue?: () => void) {
    if (this.#closed) return;
    const displayPhoneNumber =
      this.options.displayPhoneNumbers?.[phoneNumberId] ?? `1555${phoneNumberId.replace(/\D/g, '').slice(-7)}`;
    const metadata = { display_phone_number: displayPhoneNumber, phone_number_id: phoneNumberId };
    const payload = envelope(this.options.wabaId ?? '100000000000900', metadata, field, value);
    this.#webhooks.send(field, payload, delayMs, onDue);
  }

  #notifyGroup(group: Group, field: string, event: Json, delayMs?: number) {
    this.#notify(
      group.phoneNumberId,
      field,
      { groups: [{ timestamp: unixNow(), group_id: group.id, ...event }] },
      delayMs,
    );
  }

  #notifyStatus(message: Message, status: Exclude<MessageStatus, 'accepted'>, delayMs: number, code?: number) {
    const group = message.recipientType === 'group';
    const category = group ? 'group_service' : message.type === 'template' ? 'utility' : 'service';
    const value = {
      statuses: [
        {
          id: message.messageId,
          status,
          timestamp: unixNow(),
          recipient_id: message.to,
          ...(group ? { recipient_type: 'group' } : {}),
          ...(status === 'sent' || status === 'delivered'
            ? { pricing: { billable: true, pricing_model: 'PMP', type: 'regular', category } }
            : {}),
          ...(code !== undefined ? { errors: [webhookError(code)] } : {}),
        },
      ],
    };
    this.#notify(message.phoneNumberId, 'messages', value, delayMs, () => {
      message.status = status;
    });
  }

  // Control API

  async #handleControl(method: string, pathname: string, raw: string, response: ServerResponse) {
    try {
      const body = raw ? parseJson(raw) : {};
      if (!body) throw new SimulatorError(400, 'the body must be a JSON object');
      send(response, 200, await this.#control(method, pathname.slice(CONTROL_PREFIX.length), body));
    } catch (error) {
      if (!(error instanceof SimulatorError)) throw error;
      send(response, error.status, { error: { message: error.message, ...(error.code ? { code: error.code } : {}) } });
    }
  }

  async #control(method: string, path: string, body: Json): Promise<unknown> {
    const [resource = '', id = '', action = '', subId = ''] = path.split('/').filter(Boolean).map(decodeSegment);
    const route = `${method} ${resource}${action ? `/:id/${action}` : id ? '/:id' : ''}${subId ? '/:subId' : ''}`;
    const str = (name: string) => {
      if (typeof body[name] !== 'string' || !body[name]) throw new SimulatorError(400, `${name} is required`);
      return body[name] as string;
    };
    switch (route) {
      case 'POST next-group':
        this.scriptNextGroup(body as unknown as GroupScript);
        return { scriptedGroups: this.#scripts };
      case 'POST next-settings':
        this.scriptNextSettings(body as unknown as SettingsScript);
        return { scriptedSettings: this.#settingsScripts };
      case 'POST groups/:id/suspend':
        this.suspend(id);
        return this.group(id);
      case 'POST groups/:id/unsuspend':
        this.clearSuspension(id);
        return this.group(id);
      case 'POST faults':
        this.addFault(body as unknown as FaultSpec);
        return { faults: this.state().faults };
      case 'DELETE faults':
        this.#faults.length = 0;
        return { faults: [] };
      case 'POST duplicates':
        this.setDuplicates(body.times as number);
        return { duplicates: this.#webhooks.duplicates };
      case 'POST groups/:id/join-requests':
        return { joinRequestId: this.requestToJoin(id, str('waId')) };
      case 'DELETE groups/:id/join-requests/:subId':
        this.revokeJoinRequest(id, subId);
        return { revoked: subId };
      case 'POST groups/:id/join':
        this.join(id, str('waId'));
        return this.group(id);
      case 'POST groups/:id/leave':
        this.leave(id, str('waId'));
        return this.group(id);
      case 'POST groups/:id/messages':
        return {
          messageId: this.receiveMessage(id, { from: str('from'), text: str('text'), name: body.name as string }),
        };
      case 'POST messages/:id/status':
        this.setMessageStatus(id, str('status') as 'read', body.code as number | undefined);
        return { messageId: id, status: body.status };
      case 'GET state':
        return this.state();
      case 'GET requests':
        return { requests: this.requestLog };
      case 'GET webhooks':
        return { webhooks: this.webhookLog };
      case 'POST flush':
        await this.flushWebhooks();
        return { flushed: true };
      case 'POST reset':
        await this.reset();
        return { reset: true };
      default:
        throw new SimulatorError(404, `unknown control route ${method} ${CONTROL_PREFIX}${path}`);
    }
  }
}

function throwTransportFault(fault: FaultSpec): void {
  const headers: Record<string, string> =
    fault.retryAfterSeconds !== undefined ? { 'retry-after': String(fault.retryAfterSeconds) } : {};
  if (fault.mode === 'http500') throw new GraphFailure(500, 2, { message: 'Service temporarily unavailable' });
  if (fault.mode === 'http429') throw new GraphFailure(429, 130429, { headers });
  if (fault.mode === 'code131208') throw new GraphFailure(429, 131208, { headers });
  // The (business, consumer) pair rate limit: Meta answers it as an ordinary 400 error.
  if (fault.mode === 'code131056') throw new GraphFailure(400, 131056, { headers });
}

function groupView(group: Group): GroupView {
  const iso = (seconds: number) => new Date(seconds * 1000).toISOString();
  return {
    groupId: group.id,
    phoneNumberId: group.phoneNumberId,
    requestId: group.requestId,
    subject: group.subject,
    ...(group.description !== undefined ? { description: group.description } : {}),
    joinApprovalMode: group.joinApprovalMode,
    createdAt: iso(group.createdAt),
    inviteLink: group.inviteLink,
    participants: [...group.participants.keys()],
    joinRequests: [...group.joinRequests].map(([joinRequestId, request]) => ({
      joinRequestId,
      waId: request.waId,
      createdAt: iso(request.createdAt),
    })),
    suspended: group.suspended,
  };
}

/** GET /{groupId}?fields=…: without fields Meta answers only the id. */
function groupInfo(group: Group, query: URLSearchParams): Reply {
  const available: Json = {
    subject: group.subject,
    description: group.description ?? '',
    participants: [...group.participants.keys()].map((waId) => ({ wa_id: waId })),
    join_approval_mode: group.joinApprovalMode,
    suspended: group.suspended,
    creation_timestamp: group.createdAt,
    total_participant_count: group.participants.size,
  };
  const fields = (query.get('fields') ?? '').split(',').map((field) => field.trim());
  const selected = Object.fromEntries(fields.filter((field) => field in available).map((f) => [f, available[f]]));
  return { status: 200, body: { messaging_product: 'whatsapp', id: group.id, ...selected } };
}

const inviteLinkReply = (group: Group): Reply => ({
  status: 200,
  body: { messaging_product: 'whatsapp', invite_link: group.inviteLink },
});

const joinRequestsReply = (group: Group): Reply => ({
  status: 200,
  body: {
    data: [...group.joinRequests].map(([id, request]) => ({
      join_request_id: id,
      wa_id: request.waId,
      creation_timestamp: String(request.createdAt),
    })),
    paging: { cursors: { before: '', after: '' } },
  },
});

function joinRequestIds(body: Json): string[] {
  requireProduct(body);
  const list = body.join_requests;
  if (!Array.isArray(list) || list.length === 0 || !list.every((id) => typeof id === 'string' && id)) {
    throw invalid('join_requests must be a non-empty array of join request ids');
  }
  return list as string[];
}

function requireProduct(body: Json): void {
  if (body.messaging_product !== 'whatsapp') throw invalid('The parameter messaging_product is required.');
}

const invalid = (details: string) => new GraphFailure(400, 100, { details });

const encodeCursor = (offset: number) => Buffer.from(`offset:${offset}`).toString('base64url');

function decodeCursor(cursor: string): number {
  const match = /^offset:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw new GraphFailure(400, 131059);
  return Number(match[1]);
}

/** Meta's wa_id: the number's digits, without `+`. */
function toWaId(input: unknown): string {
  const waId = typeof input === 'string' ? input.replace(/^\+/, '') : '';
  if (!/^\d{6,15}$/.test(waId)) throw new SimulatorError(400, 'waId must be a phone number (6 to 15 digits)');
  return waId;
}

/** A participant reference (phone number or business-scoped user id) as the removal matches it. */
const toWaIdLoose = (input: string) => input.replace(/^\+/, '');

const nowSeconds = () => Math.floor(Date.now() / 1000);

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function parseJson(raw: string): Json | undefined {
  try {
    const value: unknown = JSON.parse(raw);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
  } catch {
    return undefined;
  }
}

async function readBody(request: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}
