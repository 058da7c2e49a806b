import { invalid, requireProduct } from './graph-groups.ts';
import { GraphFailure, ids } from './meta.ts';
import type { Notifier } from './notifications.ts';
import type { SimulatorState } from './state.ts';
import { type Json, type Message, nowSeconds, type Reply, toWaIdLoose } from './types.ts';
import type { VariantRegistry } from './variants.ts';

/** `POST /{phoneNumberId}/messages`: text to a group or a person, and templates (the group invite link). */
export class GraphMessagesApi {
  constructor(
    private readonly state: SimulatorState,
    private readonly notifier: Notifier,
    private readonly variants: VariantRegistry,
  ) {}

  send(phoneNumberId: string, body: Json): Reply {
    requireProduct(body);
    const recipientType = body.recipient_type ?? 'individual';
    const to = body.to;
    if (typeof to !== 'string' || !to) throw invalid('to is required');
    if (recipientType === 'group') {
      const group = this.state.groups.get(to);
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
    this.state.messages.set(message.messageId, message);
    const group = recipientType === 'group' ? this.state.groups.get(to) : undefined;
    this.notifier.messageStatus(message, 'sent', this.notifier.delayMs);
    this.notifier.messageStatus(message, 'delivered', 2 * this.notifier.delayMs, { group });
    return {
      status: 200,
      body: {
        messaging_product: 'whatsapp',
        ...(recipientType === 'individual' ? { contacts: [{ input: to, wa_id: message.to }] } : {}),
        messages: [{ id: message.messageId, ...(type === 'template' ? { message_status: 'accepted' } : {}) }],
      },
    };
  }

  /**
   * The business's copy of the invite-link template: with an `inviteTemplate` chosen, only that name and language
   * exist (others → 132001, as for a template the business never added); without one, any template is accepted
   * and `group_invite_link` is checked for its group.
   */
  #checkTemplate(phoneNumberId: string, template: Json | undefined) {
    const language = (template?.language as Json | undefined)?.code;
    if (typeof template?.name !== 'string' || typeof language !== 'string') {
      throw invalid('template.name and template.language.code are required');
    }
    const { inviteTemplate } = this.variants.for(phoneNumberId);
    if (inviteTemplate && (template.name !== inviteTemplate.name || language !== inviteTemplate.language)) {
      throw new GraphFailure(404, 132001, {
        details: `template name (${template.name}) does not exist in ${language}`,
      });
    }
    if (!inviteTemplate && template.name !== 'group_invite_link') return;
    const components = Array.isArray(template.components) ? (template.components as Json[]) : [];
    const parameter = components
      .flatMap((component) => (Array.isArray(component.parameters) ? (component.parameters as Json[]) : []))
      .find((item) => item.type === 'group_id');
    const group = typeof parameter?.group_id === 'string' ? this.state.groups.get(parameter.group_id) : undefined;
    if (group?.phoneNumberId !== phoneNumberId) throw new GraphFailure(400, 131041);
  }
}
