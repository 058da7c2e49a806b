import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { DEMO_PHONE_NUMBER_ID } from '#infra/local/seed';
import { config } from '#shared/config/core';
import { NETWORK_NOTIFICATIONS_QUEUE } from '#shared/ports/notification-inbox';
import { eventually } from './eventually.ts';
import type { TestStack } from './local-stack.ts';
import { signedMetaRequest } from './whatsapp.ts';

const FIXTURES = new URL('../fixtures/meta/', import.meta.url);

/** Values a fixture of test/fixtures/meta names as `{{NAME}}` (a string) or `"{{NAME#}}"` (a JSON number). */
export type FixtureValues = Record<string, string | number>;

const DEFAULTS: FixtureValues = {
  WABA_ID: '100000000000900',
  DISPLAY_NUMBER: '4915100000001',
  PHONE_NUMBER_ID: DEMO_PHONE_NUMBER_ID,
};

/**
 * A notification of test/fixtures/meta (written by us from the shapes Meta documents), with its placeholders
 * filled in. `TS` defaults to now, in Unix seconds.
 */
export function metaFixture(name: string, values: FixtureValues = {}): unknown {
  const all: FixtureValues = { TS: Math.floor(Date.now() / 1000), ...DEFAULTS, ...values };
  const text = readFileSync(new URL(`${name}.json`, FIXTURES), 'utf8')
    .replace(/"\{\{([A-Z_]+)#\}\}"|\{\{([A-Z_]+)#\}\}/g, (_, quoted, bare) => {
      const key = quoted ?? bare;
      if (all[key] === undefined) throw new Error(`fixture ${name}: no value for ${key}`);
      return String(Number(all[key]));
    })
    .replace(/\{\{([A-Z_]+)\}\}/g, (_, key) => {
      if (all[key] === undefined) throw new Error(`fixture ${name}: no value for ${key}`);
      return JSON.stringify(String(all[key])).slice(1, -1);
    });
  return JSON.parse(text);
}

/**
 * Signs a payload with the stack's app secret and posts it to the network webhook; returns the response once what
 * it kept has been applied (the network-notifications worker has nothing left to do), so a test reads the outcome.
 */
export async function postNotification(api: TestStack, payload: unknown): Promise<Response> {
  const response = await postNotificationOnly(api, payload);
  if (response.status === 200) await networkSettled(api);
  return response;
}

/** The same, answered as soon as the webhook kept it: nothing applied yet. */
export function postNotificationOnly(api: TestStack, payload: unknown): Promise<Response> {
  const { body, headers } = signedMetaRequest(payload, config().whatsapp.appSecret);
  return api.call('/network/whatsapp/webhook', { method: 'POST', body, headers });
}

/** Waits until the network-notifications queue is empty: every kept notification sorted and applied. */
export function networkSettled(api: TestStack, timeoutMs = 10_000): Promise<void> {
  const queue = api.stack.queues.get(NETWORK_NOTIFICATIONS_QUEUE)!;
  return eventually(
    () => {
      if (queue.size > 0) throw new Error(`${queue.size} notifications still queued`);
    },
    { timeoutMs, intervalMs: 10 },
  );
}

/** Posts a fixture and expects Meta's answer to be 200. */
export async function notifyFixture(api: TestStack, name: string, values: FixtureValues = {}): Promise<void> {
  const response = await postNotification(api, metaFixture(name, values));
  expect(response.status).toBe(200);
}
