import type {
  Chat,
  GroupStatus,
  JoinRequest,
  Message,
  MessageStatus,
  Participant,
  Receipt,
} from '#shared/domain/chats/chat';
import type { Page, PageRequest } from './identity-store.ts';

export interface ExternalChatLink {
  orgId: string;
  chatId: string;
  phoneNumberId: string;
}

export interface MessageLink {
  orgId: string;
  chatId: string;
  messageId: string;
}

export interface ChatStore {
  /** Stores a new chat; returns false when a chat with that id exists (nothing changes). */
  createChat(chat: Chat): Promise<boolean>;
  getChat(orgId: string, chatId: string): Promise<Chat | undefined>;
  /** Applies `change` to the chat with an optimistic version check, retrying on a concurrent change. */
  updateChat(
    orgId: string,
    chatId: string,
    change: (chat: Chat) => Partial<Chat> | undefined,
  ): Promise<Chat | undefined>;
  /**
   * Records activity on a chat without reading it first, so that any number of concurrent messages never conflict:
   * `updatedAt` moves forward to `at` (never back), and `lastMessageFrom`, when given, is set. Nothing for a missing chat.
   */
  touchChat(orgId: string, chatId: string, at: string, lastMessageFrom?: Chat['lastMessageFrom']): Promise<void>;
  /** The organisation's group chats, newest first, optionally of one channel or in one status. */
  listGroups(
    orgId: string,
    filter: { channelId?: string; groupStatus?: GroupStatus },
    page: PageRequest,
  ): Promise<Page<Chat>>;
  /** Links a network group id to a chat once: false (nothing changes) when it is linked to another chat. */
  linkExternalChat(externalChatId: string, link: ExternalChatLink): Promise<boolean>;
  findExternalChat(externalChatId: string): Promise<ExternalChatLink | undefined>;

  /** Stores a message; returns false when it exists (a replayed inbound message). */
  createMessage(message: Message): Promise<boolean>;
  getMessage(orgId: string, chatId: string, messageId: string): Promise<Message | undefined>;
  /** Oldest first. */
  listMessages(orgId: string, chatId: string, page: PageRequest): Promise<Page<Message>>;
  /**
   * Moves a message's status forward in one conditional write: only from one of `from` (or, for `rankBelow`, from
   * any status ranked lower). Returns false when the condition does not hold.
   */
  updateMessage(
    orgId: string,
    chatId: string,
    messageId: string,
    condition: { from: MessageStatus[] } | { sendingSince: string | null },
    changes: Partial<Pick<Message, 'status' | 'error' | 'networkMessageId' | 'sendingSince'>> & {
      clearSending?: boolean;
    },
  ): Promise<boolean>;
  /** Links a wamid to a message once: false (nothing changes) when it is linked to another message. */
  linkNetworkMessage(networkMessageId: string, link: MessageLink): Promise<boolean>;
  findNetworkMessage(networkMessageId: string): Promise<MessageLink | undefined>;
  /**
   * Keeps a status notification for a wamid that no message is linked to yet (Meta may notify before the sender has
   * linked its answer's id); the sender applies it once it links the wamid. It is kept with the organisation that
   * owns the number it was reported for (CONTRACT §25), and read back by that organisation's sender only.
   */
  holdStatus(orgId: string, networkMessageId: string, status: string, notification: unknown, now: Date): Promise<void>;
  heldStatuses(orgId: string, networkMessageId: string): Promise<unknown[]>;
  /** Links a wamid to a message unless it is linked already; returns the link that holds. */
  claimNetworkMessage(networkMessageId: string, link: MessageLink): Promise<MessageLink>;

  /**
   * Keeps one member's receipt of a message: its `delivered` and its `read` each once, at the earliest time given;
   * false when that receipt is already kept as early or earlier.
   */
  putReceipt(orgId: string, chatId: string, messageId: string, receipt: Receipt): Promise<boolean>;
  /** A message's receipts, by member, `delivered` before `read`. */
  listReceipts(orgId: string, chatId: string, messageId: string, page: PageRequest): Promise<Page<Receipt>>;

  /**
   * Keeps a join request; false (nothing changes) when one with that id is kept already with another creation time,
   * so true means it is new, or the same one again.
   */
  putJoinRequest(orgId: string, chatId: string, joinRequest: JoinRequest): Promise<boolean>;
  /** Deletes a join request; false when there was none. */
  deleteJoinRequest(orgId: string, chatId: string, joinRequestId: string): Promise<boolean>;
  listJoinRequests(orgId: string, chatId: string, page: PageRequest): Promise<Page<JoinRequest>>;
}

export type { Participant };
