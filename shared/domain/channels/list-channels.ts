import { decodeCursor, encodeCursor } from '#shared/domain/cursor';
import { publicChannel } from '#shared/domain/orgs/model';
import type { CursorKey } from '#shared/ports/cursor-key';
import type { ChannelStore } from '#shared/ports/identity-store';

/**
 * Lists an organisation's channels, oldest first.
 * 1. Decode the cursor, bound to this organisation and listing.
 * 2. Read one page and return the public view (never network credentials) and the next cursor.
 */
export async function listChannels(
  deps: { identity: ChannelStore; cursorKey: CursorKey },
  input: { orgId: string; limit: number; cursor?: string },
) {
  const binding = ['channels', input.orgId];
  const key = await deps.cursorKey.get();
  const page = await deps.identity.listChannels(input.orgId, {
    limit: input.limit,
    startKey: decodeCursor(key, input.cursor, binding),
  });
  return { channels: page.items.map(publicChannel), nextCursor: encodeCursor(key, page.nextKey, binding) };
}
