/** Every key value of the table, built here and nowhere else. See the access-pattern table in the README. */
export const keys = {
  org: (orgId: string) => ({ PK: `ORG#${orgId}`, SK: 'ORG' }),
  credential: (clientId: string) => ({ PK: `CLIENT#${clientId}`, SK: 'CLIENT' }),
  loginFailures: (clientId: string) => ({ PK: `CLIENT#${clientId}`, SK: 'LOGIN_FAILURES' }),
  channel: (orgId: string, channelId: string) => ({ PK: `ORG#${orgId}`, SK: `CHANNEL#${channelId}` }),
  channelPrefix: (orgId: string) => ({ PK: `ORG#${orgId}`, SKPrefix: 'CHANNEL#' }),
  channelByPhoneNumberId: (phoneNumberId: string, channelId: string) => ({
    GSI1PK: `WAPHONE#${phoneNumberId}`,
    GSI1SK: `CHANNEL#${channelId}`,
  }),
  channelByPhoneNumberIdPartition: (phoneNumberId: string) => `WAPHONE#${phoneNumberId}`,
};

/** Strips the key attributes before an item becomes a domain object. */
export function withoutKeys<T>(item: Record<string, unknown>): T {
  const { PK, SK, GSI1PK, GSI1SK, GSI2PK, GSI2SK, ttl, entity, ...rest } = item;
  return rest as T;
}

export const groupKeys = {
  request: (orgId: string, requestId: string) => ({ PK: `ORG#${orgId}`, SK: `GRQ#${requestId}` }),
  /** Sparse index entries: a request is in OPEN while open, in UNPUBLISHED while final but unannounced. */
  open: (createdAt: string, orgId: string, requestId: string) => ({
    GSI1PK: 'GRQ#OPEN',
    GSI1SK: `${createdAt}#${orgId}#${requestId}`,
  }),
  unpublished: (updatedAt: string, orgId: string, requestId: string) => ({
    GSI1PK: 'GRQ#UNPUBLISHED',
    GSI1SK: `${updatedAt}#${orgId}#${requestId}`,
  }),
  networkRequest: (networkRequestId: string) => ({ PK: `WAREQ#${networkRequestId}`, SK: 'LINK' }),
  heldConfirmation: (networkRequestId: string) => ({ PK: `WAREQ#${networkRequestId}`, SK: 'CONFIRMATION' }),
};

export const limitKeys = {
  idempotency: (orgId: string, key: string) => ({ PK: `IDEM#${orgId}#${key}`, SK: 'IDEM' }),
  rateWindow: (scope: string, orgId: string, windowStart: number) => ({
    PK: `RATE#${scope}#${orgId}`,
    SK: `W#${windowStart}`,
  }),
};

export const chatKeys = {
  chat: (orgId: string, chatId: string) => ({ PK: `ORG#${orgId}`, SK: `CHAT#${chatId}` }),
  /** The CRM time index of CHAT records (reports): newest first by updatedAt, ties by id. */
  chatTimeIndex: (orgId: string, updatedAt: string, chatId: string) => ({
    GSI2PK: `ORG#${orgId}#CHAT`,
    GSI2SK: `${updatedAt}#${chatId}`,
  }),
  externalChat: (externalChatId: string) => ({ PK: `WAGROUP#${externalChatId}`, SK: 'LINK' }),
  conversation: (orgId: string, chatId: string) => `ORG#${orgId}#CHAT#${chatId}`,
  message: (orgId: string, chatId: string, messageId: string) => ({
    PK: `ORG#${orgId}#CHAT#${chatId}`,
    SK: `MSG#${messageId}`,
  }),
  networkMessage: (networkMessageId: string) => ({ PK: `WAMSG#${networkMessageId}`, SK: 'LINK' }),
  joinRequest: (orgId: string, chatId: string, joinRequestId: string) => ({
    PK: `ORG#${orgId}#CHAT#${chatId}`,
    SK: `JOINREQ#${joinRequestId}`,
  }),
};
