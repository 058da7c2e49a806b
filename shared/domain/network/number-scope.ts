import { logger } from '#shared/observability/logger';
import type { ChatStore } from '#shared/ports/chat-store';
import type { ChannelStore } from '#shared/ports/identity-store';

/**
 * The chats one notification may change (CONTRACT §13): a group or a message is found only when the channel that
 * owns its chat has the notification's `metadata.phone_number_id`. Anything else reads as unknown, so every handler
 * (today's and tomorrow's) ignores it with a 200, and the mismatch is logged as a security event.
 */
export function chatsOfNumber(chats: ChatStore, identity: ChannelStore, phoneNumberId: string): ChatStore {
  const numbers = new Map<string, Promise<string | undefined>>();
  const numberOfChat = (orgId: string, chatId: string) => {
    const key = `${orgId}/${chatId}`;
    let number = numbers.get(key);
    if (!number) {
      number = chats.getChat(orgId, chatId).then(async (chat) => {
        const channel = chat ? await identity.getChannel(orgId, chat.channelId) : undefined;
        return channel?.phoneNumberId;
      });
      numbers.set(key, number);
    }
    return number;
  };
  const owned = <T extends { orgId: string; chatId: string }>(kind: string, id: string, link: T, owner?: string) => {
    if (phoneNumberId && owner === phoneNumberId) return link;
    logger.warn('security: notification for a chat of another number ignored', {
      kind,
      id,
      reportedFor: phoneNumberId,
    });
    return undefined;
  };
  const scoped: Partial<ChatStore> = {
    async findExternalChat(externalChatId) {
      const link = await chats.findExternalChat(externalChatId);
      if (!link) return undefined;
      const owner = link.phoneNumberId || (await numberOfChat(link.orgId, link.chatId));
      return owned('group', externalChatId, link, owner);
    },
    async findNetworkMessage(networkMessageId) {
      const link = await chats.findNetworkMessage(networkMessageId);
      if (!link) return undefined;
      return owned('message', networkMessageId, link, await numberOfChat(link.orgId, link.chatId));
    },
  };
  return new Proxy(chats, {
    get(target, name, receiver) {
      if (name in scoped) return scoped[name as keyof ChatStore];
      const value = Reflect.get(target, name, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
