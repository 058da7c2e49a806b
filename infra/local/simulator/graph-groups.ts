import { GraphFailure, ids, webhookError } from './meta.ts';
import type { Notifier } from './notifications.ts';
import type { SimulatorState } from './state.ts';
import { type Group, type Json, MAX_PARTICIPANTS, nowSeconds, type Reply, toWaIdLoose } from './types.ts';
import { userIdOf, usernameOf, type VariantRegistry } from './variants.ts';

const MAX_GROUPS_PER_NUMBER = 10_000;
const DEFAULT_DELAY_OUTCOME_MS = 2_000;

/** The Groups API (WHATSAPP-GROUPS §1.2): create, list, read, settings, delete, invite link, join requests, removal. */
export class GraphGroupsApi {
  constructor(
    private readonly state: SimulatorState,
    private readonly notifier: Notifier,
    private readonly variants: VariantRegistry,
  ) {}

  /** `POST /{phoneNumberId}/groups`: answers a request id; the outcome comes as `group_create` (or as scripted). */
  create(phoneNumberId: string, body: Json): Reply {
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
    if (this.state.groupViews(phoneNumberId).length >= MAX_GROUPS_PER_NUMBER) throw new GraphFailure(400, 131211);

    const script = this.state.groupScripts.shift() ?? { outcome: 'success' };
    if (script.outcome === 'reject') {
      throw new GraphFailure(400, script.code ?? 131215, script.message ? { message: script.message } : {});
    }
    const requestId = ids.request();
    const reply = { status: 200, body: { messaging_product: 'whatsapp', request_id: requestId } };
    if (script.outcome === 'fail') {
      const code = script.code ?? 131215;
      this.notifier.groupCreateFailed(phoneNumberId, {
        subject,
        description,
        requestId,
        code,
        message: script.message,
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
      participants: new Map((script.addedParticipants ?? []).map((waId) => [waId, nowSeconds()])),
      joinRequests: new Map(),
      removed: new Set(),
      suspended: false,
    };
    this.state.groups.set(group.id, group);
    if (script.outcome !== 'silent') {
      const delay = script.outcome === 'delay' ? (script.delayMs ?? DEFAULT_DELAY_OUTCOME_MS) : this.notifier.delayMs;
      this.notifier.groupCreated(group, delay);
    }
    return reply;
  }

  /** `GET /{phoneNumberId}/groups?limit&after&before`: cursor pages with absolute `next` / `previous` links. */
  list(phoneNumberId: string, query: URLSearchParams, origin: string): Reply {
    const limit = query.has('limit') ? Number(query.get('limit')) : 25;
    if (!Number.isInteger(limit) || limit < 1 || limit > 1024) throw invalid('limit must be between 1 and 1024');
    const all = [...this.state.groups.values()].filter((group) => group.phoneNumberId === phoneNumberId);
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

  /** `GET /{groupId}?fields=…`: without fields Meta answers only the id. */
  info(groupId: string, query: URLSearchParams): Reply {
    const group = this.state.graphGroup(groupId);
    const byUserId = this.variants.for(group.phoneNumberId, group.id).participantIds === 'user_id';
    const available: Json = {
      subject: group.subject,
      description: group.description ?? '',
      participants: [...group.participants.keys()].map((waId) =>
        byUserId ? { user_id: userIdOf(waId), username: usernameOf(waId) } : { wa_id: waId },
      ),
      join_approval_mode: group.joinApprovalMode,
      suspended: group.suspended,
      creation_timestamp: group.createdAt,
      total_participant_count: group.participants.size,
    };
    const fields = (query.get('fields') ?? '').split(',').map((field) => field.trim());
    const selected = Object.fromEntries(fields.filter((field) => field in available).map((f) => [f, available[f]]));
    return { status: 200, body: { messaging_product: 'whatsapp', id: group.id, ...selected } };
  }

  /**
   * `POST /{groupId}`: subject and/or description. Meta answers at once and reports per setting in
   * `group_settings_update`; a setting scripted to fail keeps its old value and carries `errors[]`.
   */
  updateSettings(groupId: string, body: Json): Reply {
    const group = this.state.graphGroup(groupId);
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
    const script = this.state.settingsScripts.shift();
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
    this.notifier.settingsUpdated(group, ids.request(), {
      ...(typeof subject === 'string' ? { group_subject: result('subject', subject.trim()) } : {}),
      ...(typeof description === 'string' ? { group_description: result('description', description) } : {}),
    });
    return this.#success(group);
  }

  /** `DELETE /{groupId}`; scripted to fail, it is accepted and `group_delete` reports the failure (the group stays). */
  delete(groupId: string): Reply {
    const group = this.state.graphGroup(groupId);
    const script = this.state.deleteScripts.shift();
    if (script) {
      this.notifier.groupDeleted(group, ids.request(), script.code ?? 131041);
      return { status: 200, body: { success: true } };
    }
    this.state.groups.delete(group.id);
    this.notifier.groupDeleted(group, ids.request());
    return { status: 200, body: { success: true } };
  }

  /** `GET /{groupId}/invite_link`, or `POST` for a new link. */
  inviteLink(groupId: string, renew: boolean, body: Json): Reply {
    if (renew) requireProduct(body);
    const group = this.state.graphGroup(groupId);
    if (renew) group.inviteLink = ids.inviteLink();
    return { status: 200, body: { messaging_product: 'whatsapp', invite_link: group.inviteLink } };
  }

  /** `GET /{groupId}/join_requests`. */
  joinRequests(groupId: string): Reply {
    const group = this.state.graphGroup(groupId);
    return {
      status: 200,
      body: {
        data: [...group.joinRequests].map(([id, request]) => ({
          join_request_id: id,
          wa_id: request.waId,
          creation_timestamp: String(request.createdAt),
        })),
        paging: { cursors: { before: '', after: '' } },
      },
    };
  }

  /** `POST /{groupId}/join_requests`: the approved join; `group_participants_add` for them. */
  approveJoinRequests(groupId: string, body: Json): Reply {
    const group = this.state.graphGroup(groupId);
    const approved: string[] = [];
    const failed: Json[] = [];
    const added: string[] = [];
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
      added.push(request.waId);
    }
    if (added.length) this.notifier.participantsAdded(group, added, 'approved');
    return {
      status: 200,
      body: {
        messaging_product: 'whatsapp',
        approved_join_requests: approved,
        ...(failed.length ? { failed_join_requests: failed } : {}),
      },
    };
  }

  /** `DELETE /{groupId}/join_requests`: rejected silently (Meta sends no notification). */
  rejectJoinRequests(groupId: string, body: Json): Reply {
    const group = this.state.graphGroup(groupId);
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

  /** `DELETE /{groupId}/participants`: 1–8 users; those not in the group fail with 131212 in the notification. */
  removeParticipants(groupId: string, body: Json): Reply {
    const group = this.state.graphGroup(groupId);
    requireProduct(body);
    const list = body.participants;
    if (!Array.isArray(list) || list.length === 0) throw invalid('participants must be a non-empty array');
    if (list.length > MAX_PARTICIPANTS) throw new GraphFailure(400, 131204);
    const users = list.map((item) => (item as Json)?.user);
    if (!users.every((user): user is string => typeof user === 'string' && user !== '')) {
      throw invalid('every participant needs a user');
    }
    if (new Set(users.map(toWaIdLoose)).size !== users.length) throw new GraphFailure(400, 131202);
    const removed: { input: string; waId: string }[] = [];
    const failed: string[] = [];
    for (const user of users) {
      // A participant is named by phone number or by the business-scoped user id Meta gave it.
      const waId = [...group.participants.keys()].find((id) => id === toWaIdLoose(user) || userIdOf(id) === user);
      if (waId && group.participants.delete(waId)) {
        group.removed.add(waId);
        removed.push({ input: user, waId });
      } else {
        failed.push(user);
      }
    }
    this.notifier.participantsRemoved(group, ids.request(), removed, failed);
    return this.#success(group);
  }

  /** `{"success":true}`, or no body at all in the variant that follows Meta's OpenAPI description. */
  #success(group: Group): Reply {
    const { emptyBodies } = this.variants.for(group.phoneNumberId, group.id);
    return { status: 200, body: emptyBodies ? undefined : { success: true } };
  }
}

export function requireProduct(body: Json): void {
  if (body.messaging_product !== 'whatsapp') throw invalid('The parameter messaging_product is required.');
}

export const invalid = (details: string) => new GraphFailure(400, 100, { details });

function joinRequestIds(body: Json): string[] {
  requireProduct(body);
  const list = body.join_requests;
  if (!Array.isArray(list) || list.length === 0 || !list.every((id) => typeof id === 'string' && id)) {
    throw invalid('join_requests must be a non-empty array of join request ids');
  }
  return list as string[];
}

const encodeCursor = (offset: number) => Buffer.from(`offset:${offset}`).toString('base64url');

function decodeCursor(cursor: string): number {
  const match = /^offset:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw new GraphFailure(400, 131059);
  return Number(match[1]);
}
