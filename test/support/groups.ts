import { expect } from 'vitest';
import type { TestStack } from './local-stack.ts';
import { eventually } from './local-stack.ts';

export interface GroupStatus {
  requestId: string;
  status: string;
  chatId?: string;
  inviteLink?: string;
  error?: { code: string; message: string };
}

/** POSTs a group request for the demo organisation's eligible channel (or `channelId`). */
export async function requestGroup(
  api: TestStack,
  token: string,
  body: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<Response> {
  return api.call(`/groups/${api.orgId}`, {
    method: 'POST',
    token,
    headers,
    json: { channelId: api.stack.demo!.channels.eligible, subject: 'Support team', ...body },
  });
}

export async function pollStatus(api: TestStack, token: string, requestId: string): Promise<GroupStatus> {
  const response = await api.call(`/groups/${api.orgId}/creation-status/${requestId}`, { token });
  expect(response.status).toBe(200);
  return (await response.json()) as GroupStatus;
}

/** Polls until the request is final, and returns it. */
export function untilFinal(api: TestStack, token: string, requestId: string, timeoutMs = 15_000) {
  return eventually(
    async () => {
      const status = await pollStatus(api, token, requestId);
      expect(['created', 'failed']).toContain(status.status);
      return status;
    },
    { timeoutMs },
  );
}

/** Creates a group end to end and returns its chat id and the network's group id. */
export async function createdGroup(api: TestStack, token: string, subject = 'Support team') {
  const response = await requestGroup(api, token, { subject });
  expect(response.status).toBe(202);
  const { requestId } = (await response.json()) as { requestId: string };
  const status = await untilFinal(api, token, requestId);
  expect(status.status).toBe('created');
  const chat = (await (await api.call(`/chats/${api.orgId}/${status.chatId}`, { token })).json()) as {
    externalChatId: string;
  };
  return { requestId, chatId: status.chatId!, groupId: chat.externalChatId, inviteLink: status.inviteLink! };
}
