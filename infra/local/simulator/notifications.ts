import { envelope, unixNow, webhookError } from './meta.ts';
import type { Group, Json, Message, MessageStatus, SimulatorOptions } from './types.ts';
import type { WebhookSender } from './webhooks.ts';

const PARTICIPANTS_FIELD = 'group_participants_update';

/**
 * Builds the notifications the simulated Meta sends (WHATSAPP-GROUPS §1.3) and hands them to the webhook sender,
 * in Meta's envelope, after the webhook delay.
 */
export class Notifier {
  closed = false;

  constructor(
    private readonly options: SimulatorOptions,
    private readonly sender: WebhookSender,
  ) {}

  get delayMs(): number {
    return this.options.webhookDelayMs ?? 100;
  }

  /** `group_create` that succeeded. */
  groupCreated(group: Group, delayMs = this.delayMs): void {
    this.#group(
      group,
      'group_lifecycle_update',
      {
        type: 'group_create',
        request_id: group.requestId,
        subject: group.subject,
        invite_link: group.inviteLink,
        join_approval_mode: group.joinApprovalMode,
      },
      delayMs,
    );
  }

  /** `group_create` that failed: no group id, `errors[]`. */
  groupCreateFailed(
    phoneNumberId: string,
    input: { subject: string; description?: unknown; requestId: string; code: number; message?: string },
  ): void {
    this.#send(phoneNumberId, 'group_lifecycle_update', {
      groups: [
        {
          timestamp: unixNow(),
          type: 'group_create',
          subject: input.subject,
          description: input.description,
          request_id: input.requestId,
          errors: [webhookError(input.code, input.message, input.message)],
        },
      ],
    });
  }

  groupDeleted(group: Group, requestId: string): void {
    this.#group(group, 'group_lifecycle_update', { type: 'group_delete', request_id: requestId });
  }

  /** `group_settings_update`: one result object per setting asked for. */
  settingsUpdated(group: Group, requestId: string, results: { group_subject?: Json; group_description?: Json }): void {
    this.#group(group, 'group_settings_update', { type: 'group_settings_update', request_id: requestId, ...results });
  }

  groupStatus(group: Group, type: 'group_suspend' | 'group_suspend_cleared'): void {
    this.#group(group, 'group_status_update', { type });
  }

  joinRequest(
    group: Group,
    type: 'group_join_request_created' | 'group_join_request_revoked',
    joinRequestId: string,
    waId: string,
  ): void {
    this.#group(group, PARTICIPANTS_FIELD, {
      type,
      reason: 'invite_link',
      join_request_id: joinRequestId,
      wa_id: waId,
    });
  }

  /** `group_participants_add`: joined through the link (`wa_id` only) or approved (`input` and `wa_id`). */
  participantsAdded(group: Group, waIds: string[], how: 'joined' | 'approved'): void {
    this.#group(group, PARTICIPANTS_FIELD, {
      type: 'group_participants_add',
      reason: 'invite_link',
      added_participants: waIds.map((waId) => (how === 'approved' ? { input: waId, wa_id: waId } : { wa_id: waId })),
    });
  }

  /** A participant left: `removed_participants: [{wa_id}]`, initiated by the participant. */
  participantLeft(group: Group, waId: string): void {
    this.#group(group, PARTICIPANTS_FIELD, {
      type: 'group_participants_remove',
      removed_participants: [{ wa_id: waId }],
      initiated_by: 'participant',
    });
  }

  /** The business removed participants: the removed by `input`, the others in `failed_participants` (131212). */
  participantsRemoved(group: Group, requestId: string, removed: string[], failed: string[]): void {
    this.#group(group, PARTICIPANTS_FIELD, {
      type: 'group_participants_remove',
      request_id: requestId,
      ...(removed.length ? { removed_participants: removed.map((input) => ({ input })) } : {}),
      ...(failed.length
        ? {
            failed_participants: failed.map((input) => ({ input, errors: [webhookError(131212)] })),
            errors: [webhookError(removed.length ? 131201 : 131212)],
          }
        : {}),
      initiated_by: 'business',
    });
  }

  /** A participant writes to the group: `messages` with `group_id`. */
  inboundMessage(group: Group, input: { id: string; from: string; name: string; text: string }): void {
    this.#send(group.phoneNumberId, 'messages', {
      contacts: [{ profile: { name: input.name }, wa_id: input.from }],
      messages: [
        {
          from: input.from,
          id: input.id,
          timestamp: unixNow(),
          type: 'text',
          text: { body: input.text },
          group_id: group.id,
        },
      ],
    });
  }

  /** A status of a sent message; the message takes the status when the notification is due. */
  messageStatus(message: Message, status: Exclude<MessageStatus, 'accepted'>, delayMs: number, code?: number): void {
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
    this.#send(message.phoneNumberId, 'messages', value, delayMs, () => {
      message.status = status;
    });
  }

  #group(group: Group, field: string, event: Json, delayMs?: number): void {
    this.#send(
      group.phoneNumberId,
      field,
      { groups: [{ timestamp: unixNow(), group_id: group.id, ...event }] },
      delayMs,
    );
  }

  #send(phoneNumberId: string, field: string, value: Json, delayMs = this.delayMs, onDue?: () => void): void {
    if (this.closed) return;
    const displayPhoneNumber =
      this.options.displayPhoneNumbers?.[phoneNumberId] ?? `1555${phoneNumberId.replace(/\D/g, '').slice(-7)}`;
    const metadata = { display_phone_number: displayPhoneNumber, phone_number_id: phoneNumberId };
    const payload = envelope(this.options.wabaId ?? '100000000000900', metadata, field, value);
    this.sender.send(field, payload, delayMs, onDue);
  }
}
