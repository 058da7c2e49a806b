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
