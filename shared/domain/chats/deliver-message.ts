import type { Config } from '#shared/config/env';
import { applyHeldStatuses, messageStatusEvent } from '#shared/domain/chats/network-updates';
import { notificationEvent, type PublishOnceDeps, publishOnce } from '#shared/domain/events/publish-once';
import { ChannelDisabledError } from '#shared/errors';
import { logger } from '#shared/observability/logger';
import type { ChannelCredentials } from '#shared/ports/channel-credentials';
import type { ChatStore } from '#shared/ports/chat-store';
import type { Clock } from '#shared/ports/clock';
import type { ChannelStore } from '#shared/ports/identity-store';
import { type MessagingNetwork, type NetworkChannel, NetworkError } from '#shared/ports/messaging-network';
import { backoffSeconds, RetryLater } from '#shared/queue/retry';
import type { Message } from './chat.ts';

export interface DeliverMessageDeps extends PublishOnceDeps {
  config: Pick<Config, 'groups'>;
  clock: Clock;
  chats: ChatStore;
  identity: ChannelStore;
  network: MessagingNetwork;
  channelCredentials: ChannelCredentials;
}

/**
 * Sends one queued message to the network (the message sender's job). At most once: a message is marked
 * `sendingSince` before the call, so a redelivery after an unknown outcome never sends it a second time.
 * 1. Skip a message that is gone or no longer queued; fail one whose channel an operator has disabled since (the
 *    network gate refuses it with CHANNEL_DISABLED, before anything is marked).
 * 2. Mark it sending (conditional), POST /{phoneNumberId}/messages (a group: `recipient_type: group`).
 * 3. Sent → `sent` with Meta's id (status notifications then move it on); not sent → back to queued and retried
 *    with backoff; refused (e.g. 131020, a group with no members) → `failed` with Meta's code and message;
 *    unknown outcome → `failed` with NETWORK_TIMEOUT rather than risk a duplicate.
 * 4. `sent` is published here (with the event id Meta's own `sent` notification would give it, so it is published
 *    once: Meta's `delivered` can overtake its `sent`), and a failure decided here publishes `failed` once (Meta
 *    sends no status for a message it refused); later states come from Meta's notifications (network-updates.ts).
 */
export async function deliverMessage(deps: DeliverMessageDeps, job: MessageJob, receiveCount: number): Promise<void> {
  const delivery = await openDelivery(deps, job);
  if (!delivery) return;
  const { message, to, network } = delivery;
  const since = deps.clock.now().toISOString();
  if (
    !(await deps.chats.updateMessage(
      job.orgId,
      job.chatId,
      job.messageId,
      { sendingSince: null },
      { sendingSince: since },
    ))
  )
    return;
  try {
    const { networkMessageId } = await deps.network.sendText(network, to, message.text);
    // `sent` first, then the link: a status notification finds the message only once it is `sent`, so none can be
    // overwritten by it; one that came earlier was held and is applied now.
    const marked = await deps.chats.updateMessage(
      job.orgId,
      job.chatId,
      job.messageId,
      { sendingSince: since },
      {
        status: 'sent',
        networkMessageId,
        clearSending: true,
      },
    );
    if (marked) {
      await publishOnce(deps, messageStatusEvent(job, networkMessageId, 'sent', deps.clock.now().toISOString()));
    }
    await linkSent(deps, job, networkMessageId, network.phoneNumberId);
  } catch (error) {
    if (!(error instanceof NetworkError)) throw error;
    await sendFailed(deps, job, since, error, receiveCount);
  }
}

type MessageJob = { orgId: string; chatId: string; messageId: string };
/** A message's recipient on the network: a group, or one number. */
type Recipient = Parameters<MessagingNetwork['sendText']>[1];

/**
 * Step 1: the queued message, its recipient (the chat on the network) and its channel's network access; undefined when there is nothing to send
 * (the message is gone or no longer queued, or it failed here: unknown outcome, unreachable chat, disabled channel).
 */
async function openDelivery(
  deps: DeliverMessageDeps,
  job: MessageJob,
): Promise<{ message: Message; to: Recipient; network: NetworkChannel } | undefined> {
  const message = await deps.chats.getMessage(job.orgId, job.chatId, job.messageId);
  if (message?.status !== 'queued') {
    // A redelivery after a crash between marking the message sent and linking its wamid finishes the link.
    if (message?.networkMessageId) await linkSent(deps, job, message.networkMessageId);
    return undefined;
  }
  if (message.sendingSince) {
    await fail(deps, job, { sendingSince: message.sendingSince }, TIMEOUT);
    return undefined;
  }
  const chat = await deps.chats.getChat(job.orgId, job.chatId);
  const channel = chat ? await deps.identity.getChannel(job.orgId, chat.channelId) : undefined;
  if (!chat?.externalChatId || !channel) {
    await fail(
      deps,
      job,
      { from: ['queued'] },
      {
        code: 'CHANNEL_NOT_SUPPORTED',
        message: 'the chat cannot be reached through the network',
      },
    );
    return undefined;
  }
  try {
    const to = chat.chatType === 'GROUP' ? { groupId: chat.externalChatId } : { phoneNumber: chat.externalChatId };
    return { message, to, network: await deps.channelCredentials.forChannel(channel) };
  } catch (error) {
    // Queued before an operator disabled the channel (CONTRACT §17): the gate lets nothing more through it. A
    // suspended organisation's refusal goes up: its job waits on the queue.
    if (!(error instanceof ChannelDisabledError)) throw error;
    await fail(deps, job, { from: ['queued'] }, CHANNEL_DISABLED);
    return undefined;
  }
}

/** Step 3, the send failed: not sent → queued again and retried with backoff; else `failed` (Meta's code or timeout). */
async function sendFailed(
  deps: DeliverMessageDeps,
  job: MessageJob,
  since: string,
  error: NetworkError,
  receiveCount: number,
): Promise<void> {
  if (error.kind === 'not-sent') {
    await deps.chats.updateMessage(
      job.orgId,
      job.chatId,
      job.messageId,
      { sendingSince: since },
      { clearSending: true },
    );
    throw new RetryLater(
      backoffSeconds(deps.config.groups.retryBaseSeconds, receiveCount, error.details.retryAfterSeconds),
      error.message,
    );
  }
  const failure =
    error.kind === 'rejected' ? { code: String(error.code ?? 'NETWORK_REJECTED'), message: error.message } : TIMEOUT;
  logger.warn('message not sent', { messageId: job.messageId, code: failure.code });
  await fail(deps, job, { sendingSince: since }, failure);
}

/**
 * Links the wamid to the message and applies the statuses held for it that the sending number reported
 * (`phoneNumberId`; read from the chat's channel when a redelivery finishes a link).
 */
async function linkSent(
  deps: DeliverMessageDeps,
  job: { orgId: string; chatId: string; messageId: string },
  networkMessageId: string,
  phoneNumberId?: string,
): Promise<void> {
  const link = { orgId: job.orgId, chatId: job.chatId, messageId: job.messageId };
  const holder = await deps.chats.claimNetworkMessage(networkMessageId, link);
  if (holder.messageId !== job.messageId || holder.chatId !== job.chatId || holder.orgId !== job.orgId) {
    logger.error('security: the network reused a message id already linked', { networkMessageId });
    return;
  }
  let number = phoneNumberId;
  if (number === undefined) {
    const chat = await deps.chats.getChat(job.orgId, job.chatId);
    number = (chat ? await deps.identity.getChannel(job.orgId, chat.channelId) : undefined)?.phoneNumberId;
  }
  if (number === undefined) return;
  await applyHeldStatuses(deps, job.orgId, networkMessageId, number);
}

const TIMEOUT = { code: 'NETWORK_TIMEOUT', message: 'the network did not answer; the message may not have been sent' };
const CHANNEL_DISABLED = {
  code: 'CHANNEL_DISABLED',
  message: 'the channel was disabled by an operator before the message was sent',
};

/** Marks the message failed (if `condition` still holds) and publishes its `message.status` once. */
async function fail(
  deps: DeliverMessageDeps,
  job: { orgId: string; chatId: string; messageId: string },
  condition: Parameters<DeliverMessageDeps['chats']['updateMessage']>[3],
  error: { code: string; message: string },
) {
  const moved = await deps.chats.updateMessage(job.orgId, job.chatId, job.messageId, condition, {
    status: 'failed',
    error,
    ...('sendingSince' in condition ? { clearSending: true } : {}),
  });
  if (!moved) return;
  await publishOnce(
    deps,
    notificationEvent('message.status', `${job.messageId}:failed`, {
      orgId: job.orgId,
      occurredAt: deps.clock.now().toISOString(),
      data: { chat_id: job.chatId, message_id: job.messageId, status: 'failed', error, participant: null },
    }),
  );
}
