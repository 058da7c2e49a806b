import { describe, expect, it } from 'vitest';
import { hashClientSecret } from '#shared/auth/client-secret';
import { deps } from '#shared/config/deps';
import { derivedCredentialId } from '#shared/domain/auth/credential-id';
import { createdGroup } from '#test/support/groups';
import { eventually, useLocalStack } from '#test/support/local-stack';

interface MessageView {
  messageId: string;
  direction: string;
  from: string;
  sentBy: string | null;
}

describe('the sender of outbound messages (CONTRACT §18)', () => {
  const api = useLocalStack();

  const sendAndRead = async (token: string, chatId: string, text: string) => {
    const sent = await api.call('/messaging/send-message', { method: 'POST', token, json: { chatId, text } });
    const { messageId } = (await sent.json()) as { messageId: string };
    return eventually(async () => {
      const page = (await (await api.call(`/chats/${api.orgId}/${chatId}/messages`, { token })).json()) as {
        messages: MessageView[];
      };
      const message = page.messages.find((item) => item.messageId === messageId);
      expect(message).toBeDefined();
      return message!;
    });
  };

  it("shows the sending credential's role as from and its opaque id as sentBy, which /token does not accept", async () => {
    const bot = api.stack.demo!.credentials.CRM_BOT;
    const { chatId } = await createdGroup(api, await api.token('CRM_ADMIN'));

    const message = await sendAndRead(await api.token('CRM_BOT'), chatId, 'Your order shipped');
    const asClient = await api.call('/token', {
      method: 'POST',
      json: { clientId: message.sentBy, clientSecret: bot.clientSecret },
    });

    const stored = await deps().identity.getCredential(bot.clientId);
    expect(message).toMatchObject({ direction: 'OUTBOUND', from: 'CRM_BOT', sentBy: stored!.credentialId });
    expect(message.sentBy).toMatch(/^crd_/);
    expect(JSON.stringify(message)).not.toContain(bot.clientId);
    expect(asClient.status).toBe(401);
    expect(((await asClient.json()) as { code: string }).code).toBe('INVALID_CLIENT');
  });

  it('gives a credential created before credential ids one stable derived id, the same in every token', async () => {
    const clientSecret = 'cs_legacy-secret-for-the-test';
    const clientId = `cli_legacy_${Date.now()}`;
    await deps().identity.createCredential({
      clientId,
      orgId: api.orgId,
      roles: ['CRM_BOT'],
      secretHash: await hashClientSecret(clientSecret),
      createdAt: new Date().toISOString(),
    });
    const { chatId } = await createdGroup(api, await api.token('CRM_ADMIN'), 'Legacy');
    const legacyToken = async () =>
      (
        (await (await api.call('/token', { method: 'POST', json: { clientId, clientSecret } })).json()) as {
          accessToken: string;
        }
      ).accessToken;

    const first = await sendAndRead(await legacyToken(), chatId, 'one');
    const second = await sendAndRead(await legacyToken(), chatId, 'two');

    expect(first).toMatchObject({ from: 'CRM_BOT', sentBy: derivedCredentialId(clientId) });
    expect(second.sentBy).toBe(first.sentBy);
  });
});
