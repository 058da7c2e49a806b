import type { ServerResponse } from 'node:http';
import { FaultList } from './faults.ts';
import { decodeSegment, parseJson, send } from './http.ts';
import { ids } from './meta.ts';
import { Notifier, type ReplayFilter } from './notifications.ts';
import { SimulatorState } from './state.ts';
import {
  type DeleteScript,
  type FaultSpec,
  type GroupScript,
  type GroupView,
  groupView,
  type Json,
  MAX_PARTICIPANTS,
  type MessageView,
  nowSeconds,
  type RequestLogEntry,
  type SettingsChange,
  type SettingsScript,
  SimulatorError,
  type SimulatorOptions,
  toWaId,
} from './types.ts';
import { parseVariants, userIdOf, VariantRegistry, type VariantScope, type Variants } from './variants.ts';
import { type WebhookDelivery, WebhookSender } from './webhooks.ts';

export const CONTROL_PREFIX = '/_simulator';
/** #control's answer to a route it does not know (every other answer is JSON). */
const UNKNOWN_ROUTE = Symbol('unknown route');

/**
 * What a test or an operator does to the simulated Meta: script outcomes and faults, play users (join, leave, write)
 * and Meta itself (suspend), and read its state. Each is a method in-process and a route under `/_simulator` over HTTP
 * (README.md).
 */
export class SimulatorControls {
  /** Every Graph request received (the access token is not recorded). */
  readonly requestLog: RequestLogEntry[] = [];
  protected readonly store = new SimulatorState();
  protected readonly faults = new FaultList();
  protected readonly webhooks: WebhookSender;
  protected readonly notifier: Notifier;
  protected readonly variants = new VariantRegistry();
  protected inFlight = 0;
  protected maxInFlight = 0;

  constructor(readonly options: SimulatorOptions) {
    this.webhooks = new WebhookSender(() => ({
      webhookUrl: this.options.webhookUrl,
      appSecret: this.options.appSecret,
      attempts: this.options.webhookAttempts ?? 3,
      retryDelayMs: this.options.webhookRetryDelayMs ?? 200,
    }));
    this.notifier = new Notifier(options, this.webhooks, this.variants);
  }

  /**
   * Chooses published variants of Meta's notifications and answers (variants.ts): for one group, one phone number,
   * or (no scope) every one. Later calls add to earlier ones; `resetVariants()` goes back to the defaults.
   */
  setVariants(variants: Partial<Variants> & { preset?: string }, scope: VariantScope = {}): void {
    this.variants.set(parseVariants(variants as Record<string, unknown>), scope);
  }

  /** The variants in force for a phone number (and group). */
  variantsFor(phoneNumberId: string, groupId?: string): Variants {
    return this.variants.for(phoneNumberId, groupId);
  }

  resetVariants(): void {
    this.variants.clear();
  }

  /** The business-scoped user id the simulator gives a phone number (`participantIds: "user_id"`). */
  userIdOf(waId: string): string {
    return userIdOf(toWaId(waId));
  }

  /** Meta's late retry: the latest matching notification again, its timestamps `ageSeconds` (60) older. */
  replay(filter: ReplayFilter = {}): string {
    if (filter.ageSeconds !== undefined && !(Number.isInteger(filter.ageSeconds) && filter.ageSeconds >= 0)) {
      throw new SimulatorError(400, 'ageSeconds must be a whole number ≥ 0');
    }
    if (filter.skip !== undefined && !(Number.isInteger(filter.skip) && filter.skip >= 0)) {
      throw new SimulatorError(400, 'skip must be a whole number ≥ 0');
    }
    const field = this.notifier.replay(filter);
    if (!field) throw new SimulatorError(404, 'no notification sent matches');
    return field;
  }

  scriptNextGroup(script: GroupScript): void {
    if (!['success', 'fail', 'silent', 'delay', 'reject'].includes(script?.outcome)) {
      throw new SimulatorError(400, 'outcome must be success, fail, silent, delay or reject');
    }
    const members = script.addedParticipants;
    if (members !== undefined && (!Array.isArray(members) || members.length > MAX_PARTICIPANTS)) {
      throw new SimulatorError(400, `addedParticipants must list at most ${MAX_PARTICIPANTS} phone numbers`);
    }
    this.store.groupScripts.push({ ...script, ...(members ? { addedParticipants: members.map(toWaId) } : {}) });
  }

  /** The next `DELETE /{groupId}` is accepted, and its `group_delete` reports a failure (`errors[]`). */
  scriptNextDelete(script: DeleteScript): void {
    if (script?.outcome !== 'fail') throw new SimulatorError(400, 'outcome must be fail');
    if (script.code !== undefined && !Number.isInteger(script.code))
      throw new SimulatorError(400, 'code must be a number');
    this.store.deleteScripts.push({ ...script });
  }

  /**
   * A settings change the service did not ask for (an admin in WhatsApp): a new profile picture and/or who may join
   * without approval, reported in `group_settings_update`.
   */
  changeSettings(groupId: string, change: SettingsChange): void {
    const group = this.store.requireGroup(groupId);
    const mode = change?.joinApprovalMode;
    if (mode !== undefined && mode !== 'approval_required' && mode !== 'auto_approve') {
      throw new SimulatorError(400, 'joinApprovalMode must be approval_required or auto_approve');
    }
    if (!change?.profilePicture && mode === undefined) {
      throw new SimulatorError(400, 'give profilePicture: true and/or joinApprovalMode');
    }
    if (mode) group.joinApprovalMode = mode;
    this.notifier.settingsChanged(group, { profilePicture: change.profilePicture === true, joinApprovalMode: mode });
  }

  scriptNextSettings(script: SettingsScript): void {
    const fields = script?.failFields;
    if (!Array.isArray(fields) || !fields.every((field) => field === 'subject' || field === 'description')) {
      throw new SimulatorError(400, 'failFields must list subject and/or description');
    }
    this.store.settingsScripts.push({ ...script, failFields: [...fields] });
  }

  /** Meta suspends a group for a policy violation: `group_suspend`; messages to it fail with 131207. */
  suspend(groupId: string): void {
    const group = this.store.requireGroup(groupId);
    if (group.suspended) throw new SimulatorError(409, 'the group is suspended already');
    group.suspended = true;
    this.notifier.groupStatus(group, 'group_suspend');
  }

  /** Meta lifts the suspension: `group_suspend_cleared`. */
  clearSuspension(groupId: string): void {
    const group = this.store.requireGroup(groupId);
    if (!group.suspended) throw new SimulatorError(409, 'the group is not suspended');
    group.suspended = false;
    this.notifier.groupStatus(group, 'group_suspend_cleared');
  }

  addFault(fault: FaultSpec): void {
    this.faults.add(fault);
  }

  /** Every notification from now on is sent `times` extra times (0 stops the replays). */
  setDuplicates(times: number): void {
    if (!Number.isInteger(times) || times < 0) throw new SimulatorError(400, 'times must be a whole number ≥ 0');
    this.webhooks.duplicates = times;
  }

  groups(phoneNumberId?: string): GroupView[] {
    return this.store.groupViews(phoneNumberId);
  }

  group(groupId: string): GroupView | undefined {
    const group = this.store.groups.get(groupId);
    return group && groupView(group);
  }

  get messages(): MessageView[] {
    return this.store.messageViews();
  }

  /** Every notification and its delivery state. */
  get webhookLog(): readonly WebhookDelivery[] {
    return this.webhooks.log;
  }

  /** A user asks to join a group that requires approval: `group_join_request_created`. */
  requestToJoin(groupId: string, waIdInput: string): string {
    const group = this.store.requireGroup(groupId);
    const waId = toWaId(waIdInput);
    if (group.joinApprovalMode !== 'approval_required') {
      throw new SimulatorError(409, 'the group approves joiners automatically; use join instead');
    }
    if (group.participants.has(waId)) throw new SimulatorError(409, `${waId} is already a participant`);
    const pending = [...group.joinRequests].find(([, request]) => request.waId === waId);
    if (pending) return pending[0];
    const joinRequestId = ids.joinRequest();
    group.joinRequests.set(joinRequestId, { waId, createdAt: nowSeconds() });
    this.notifier.joinRequest(group, 'group_join_request_created', joinRequestId, waId);
    return joinRequestId;
  }

  /** The user withdraws a join request: `group_join_request_revoked`. */
  revokeJoinRequest(groupId: string, joinRequestId: string): void {
    const group = this.store.requireGroup(groupId);
    const request = group.joinRequests.get(joinRequestId);
    if (!request) throw new SimulatorError(404, `no join request ${joinRequestId}`, 131213);
    group.joinRequests.delete(joinRequestId);
    this.notifier.joinRequest(group, 'group_join_request_revoked', joinRequestId, request.waId);
  }

  /** A user joins through the invite link: `group_participants_add`. */
  join(groupId: string, waIdInput: string): void {
    const group = this.store.requireGroup(groupId);
    const waId = toWaId(waIdInput);
    if (group.participants.has(waId)) throw new SimulatorError(409, `${waId} is already a participant`);
    if (group.removed.has(waId)) {
      throw new SimulatorError(409, `${waId} was removed by the business and cannot rejoin through the invite link`);
    }
    if (group.participants.size >= MAX_PARTICIPANTS) throw new SimulatorError(409, 'the group is full', 131204);
    group.participants.set(waId, nowSeconds());
    for (const [id, request] of group.joinRequests) if (request.waId === waId) group.joinRequests.delete(id);
    this.notifier.participantsAdded(group, [waId], 'joined');
  }

  /** A participant leaves: `group_participants_remove` initiated by the participant. */
  leave(groupId: string, waIdInput: string): void {
    const group = this.store.requireGroup(groupId);
    const waId = toWaId(waIdInput);
    if (!group.participants.delete(waId)) throw new SimulatorError(409, `${waId} is not a participant`, 131212);
    this.notifier.participantLeft(group, waId);
  }

  /**
   * A participant writes to the group: a `messages` notification with `group_id`. `type: "unsupported"` (no text)
   * is a message the network cannot deliver to businesses, with error 130501. Returns the wamid.
   */
  receiveMessage(
    groupId: string,
    input: { from: string; text?: string; name?: string; type?: 'text' | 'unsupported' },
  ): string {
    const group = this.store.requireGroup(groupId);
    const from = toWaId(input.from);
    const unsupported = input.type === 'unsupported';
    if (input.type !== undefined && input.type !== 'text' && !unsupported) {
      throw new SimulatorError(400, 'type must be text or unsupported');
    }
    if (!unsupported && (typeof input.text !== 'string' || !input.text)) {
      throw new SimulatorError(400, 'text is required');
    }
    if (!group.participants.has(from)) throw new SimulatorError(409, `${from} is not a participant; join first`);
    const id = ids.message();
    this.notifier.inboundMessage(group, {
      id,
      from,
      name: input.name ?? `Participant ${from.slice(-4)}`,
      text: unsupported ? undefined : input.text,
    });
    return id;
  }

  /**
   * Moves a sent message to `status` (e.g. `read`, or `failed` with a code) and notifies it. With `participant`
   * (a group member's phone number) the status is that member's receipt; without it a group message's `delivered` /
   * `read` names every member when the variant is per-participant, else none.
   */
  setMessageStatus(
    messageId: string,
    status: 'sent' | 'delivered' | 'read' | 'failed',
    code = 131000,
    participant?: string,
  ): void {
    const message = this.store.messages.get(messageId);
    if (!message) throw new SimulatorError(404, `no message ${messageId}`);
    if (!['sent', 'delivered', 'read', 'failed'].includes(status)) {
      throw new SimulatorError(400, 'status must be sent, delivered, read or failed');
    }
    const group = message.recipientType === 'group' ? this.store.groups.get(message.to) : undefined;
    const waId = participant === undefined ? undefined : toWaId(participant);
    if (waId && !group?.participants.has(waId)) throw new SimulatorError(409, `${waId} is not a participant`);
    this.notifier.messageStatus(message, status, this.notifier.delayMs, {
      code: status === 'failed' ? code : undefined,
      participant: waId,
      group,
    });
  }

  state() {
    const deliveries = this.webhooks.log;
    const count = (state: WebhookDelivery['state']) => deliveries.filter((item) => item.state === state).length;
    return {
      groups: this.groups(),
      messages: this.messages,
      scriptedGroups: [...this.store.groupScripts],
      scriptedSettings: [...this.store.settingsScripts],
      scriptedDeletes: [...this.store.deleteScripts],
      faults: this.faults.list(),
      duplicates: this.webhooks.duplicates,
      variants: this.variants.list(),
      counts: {
        groups: this.store.groups.size,
        messages: this.store.messages.size,
        requests: this.requestLog.length,
        graphInFlight: this.inFlight,
        graphMaxInFlight: this.maxInFlight,
        webhooks: {
          scheduled: this.webhooks.pendingCount,
          delivered: count('delivered'),
          failed: count('failed'),
          dropped: count('dropped'),
        },
      },
    };
  }

  /** Resolves when no notification is scheduled or in flight. */
  flushWebhooks(): Promise<void> {
    return this.webhooks.flush();
  }

  /** Forgets everything: state, scripts, faults, duplicates, logs and scheduled notifications. */
  async reset(): Promise<void> {
    await this.webhooks.cancel();
    this.notifier.discardOpenChanges();
    this.webhooks.log.length = 0;
    this.webhooks.duplicates = 0;
    this.store.clear();
    this.faults.clear();
    this.variants.clear();
    this.requestLog.length = 0;
    this.maxInFlight = this.inFlight;
  }

  /** Serves `/_simulator/…`: 200 with JSON, or `{"error": {"message", "code"?}}` with 400 / 404 / 409. */
  protected async handleControl(method: string, pathname: string, raw: string, response: ServerResponse) {
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
    const answer = ['groups', 'messages', 'users'].includes(resource)
      ? this.#networkControl(route, id, subId, body)
      : await this.#simulatorControl(route, body);
    if (answer === UNKNOWN_ROUTE) {
      throw new SimulatorError(404, `unknown control route ${method} ${CONTROL_PREFIX}${path}`);
    }
    return answer;
  }

  /** What happens on the network: a group's settings and suspension, members, messages and their statuses. */
  #networkControl(route: string, id: string, subId: string, body: Json): unknown {
    const str = (name: string) => {
      if (typeof body[name] !== 'string' || !body[name]) throw new SimulatorError(400, `${name} is required`);
      return body[name] as string;
    };
    switch (route) {
      case 'POST groups/:id/settings':
        this.changeSettings(id, body as SettingsChange);
        return this.group(id);
      case 'POST groups/:id/suspend':
        this.suspend(id);
        return this.group(id);
      case 'POST groups/:id/unsuspend':
        this.clearSuspension(id);
        return this.group(id);
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
      case 'POST groups/:id/messages': {
        const type = body.type as 'text' | 'unsupported' | undefined;
        const text = type === 'unsupported' ? undefined : str('text');
        return { messageId: this.receiveMessage(id, { from: str('from'), text, type, name: body.name as string }) };
      }
      case 'POST messages/:id/status':
        this.setMessageStatus(
          id,
          str('status') as 'read',
          body.code as number | undefined,
          body.participant as string | undefined,
        );
        return { messageId: id, status: body.status };
      case 'GET users/:id':
        return { waId: toWaId(id), userId: this.userIdOf(id) };
      default:
        return UNKNOWN_ROUTE;
    }
  }

  /** The simulator itself: scripted answers, faults, duplicates, variants, replays, its logs and its state. */
  async #simulatorControl(route: string, body: Json): Promise<unknown> {
    switch (route) {
      case 'POST next-group':
        this.scriptNextGroup(body as unknown as GroupScript);
        return { scriptedGroups: this.store.groupScripts };
      case 'POST next-settings':
        this.scriptNextSettings(body as unknown as SettingsScript);
        return { scriptedSettings: this.store.settingsScripts };
      case 'POST next-delete':
        this.scriptNextDelete(body as unknown as DeleteScript);
        return { scriptedDeletes: this.store.deleteScripts };
      case 'POST faults':
        this.addFault(body as unknown as FaultSpec);
        return { faults: this.faults.list() };
      case 'DELETE faults':
        this.faults.clear();
        return { faults: [] };
      case 'POST duplicates':
        this.setDuplicates(body.times as number);
        return { duplicates: this.webhooks.duplicates };
      case 'GET variants':
        return { variants: this.variants.list() };
      case 'POST variants': {
        const { phoneNumberId, groupId, ...variants } = body;
        if (phoneNumberId !== undefined && typeof phoneNumberId !== 'string') {
          throw new SimulatorError(400, 'phoneNumberId must be a string');
        }
        if (groupId !== undefined && typeof groupId !== 'string')
          throw new SimulatorError(400, 'groupId must be a string');
        this.setVariants(variants, { phoneNumberId, groupId });
        return { variants: this.variants.list() };
      }
      case 'DELETE variants':
        this.resetVariants();
        return { variants: this.variants.list() };
      case 'POST replay':
        return { replayed: this.replay(body as ReplayFilter) };
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
        return UNKNOWN_ROUTE;
    }
  }
}
