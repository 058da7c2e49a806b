import { afterEach, describe, expect, it } from 'vitest';
import { type LocalStack, startLocalStack } from '#infra/local/stack';
import { eventually, TEST_STACK_ENV } from '#test/support/local-stack';

describe('local stack shutdown', () => {
  let stack: LocalStack | undefined;
  afterEach(async () => {
    await stack?.close();
  });

  it('answers a request still in flight when close() begins, before any server stops', async () => {
    stack = await startLocalStack({ env: { ...process.env, ...TEST_STACK_ENV } });
    const simulator = stack.simulator!;
    const credentials = stack.demo!.credentials.CRM_ADMIN;
    const token = (await (
      await fetch(`${stack.apiUrl}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(credentials),
      })
    ).json()) as { accessToken: string };
    const created = (await (
      await fetch(`${stack.apiUrl}/groups/${stack.demo!.orgId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token.accessToken}` },
        body: JSON.stringify({ channelId: stack.demo!.channels.eligible, subject: 'Closing' }),
      })
    ).json()) as { requestId: string };
    const chatId = await eventually(async () => {
      const status = (await (
        await fetch(`${stack!.apiUrl}/groups/${stack!.demo!.orgId}/creation-status/${created.requestId}`, {
          headers: { authorization: `Bearer ${token.accessToken}` },
        })
      ).json()) as { chatId?: string };
      expect(status.chatId).toBeDefined();
      return status.chatId!;
    });
    simulator.options.latencyMs = 300;

    const inFlight = fetch(`${stack.apiUrl}/groups/${stack.demo!.orgId}/${chatId}/invite-link`, {
      headers: { authorization: `Bearer ${token.accessToken}` },
    });
    await eventually(() => expect(simulator.state().counts.graphInFlight).toBe(1));
    const closing = stack.close();
    const response = await inFlight;
    await closing;
    stack = undefined;

    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      inviteLink: expect.stringMatching(/^https:\/\/chat\.whatsapp\.com\//),
    });
  });
});
