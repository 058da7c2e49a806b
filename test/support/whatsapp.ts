import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { metaJson } from '#infra/local/simulator/webhooks';

/** Meta's webhook notification envelope (WHATSAPP-GROUPS §1.3). */
export interface MetaNotification {
  object: 'whatsapp_business_account';
  entry: {
    id: string;
    changes: {
      field: string;
      value: {
        messaging_product: 'whatsapp';
        metadata: { display_phone_number: string; phone_number_id: string };
      } & Record<
        string,
        // biome-ignore lint/suspicious/noExplicitAny: payload parts differ per field; tests pick what they assert
        any
      >;
    }[];
  }[];
}

const FIXTURES = new URL('../fixtures/events/whatsapp/', import.meta.url);

/** The `X-Hub-Signature-256` value Meta sends: HMAC-SHA256 of the raw body bytes keyed by the app secret. */
export function signMetaBody(rawBody: string, appSecret: string): string {
  return `sha256=${createHmac('sha256', appSecret).update(rawBody, 'utf8').digest('hex')}`;
}

/** A fixture of test/fixtures/events/whatsapp, by name with or without `.json`. */
export function loadFixture<T = MetaNotification>(name: string): T {
  return JSON.parse(fixtureText(name)) as T;
}

export function fixtureText(name: string): string {
  return readFileSync(new URL(name.endsWith('.json') ? name : `${name}.json`, FIXTURES), 'utf8');
}

/** A payload as Meta posts it: compact JSON with non-ASCII escaped as \uXXXX, signed, with its headers. */
export function signedMetaRequest(
  payload: unknown,
  appSecret: string,
): { body: string; headers: Record<string, string> } {
  const body = metaJson(payload);
  return {
    body,
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': signMetaBody(body, appSecret) },
  };
}

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  rawBody: string;
  body: MetaNotification;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** Status answered to the next requests (a 5xx makes the simulator retry). */
  status: number;
  /** Notifications of one field, flattened to their `value`s. */
  values(field: string): MetaNotification['entry'][number]['changes'][number]['value'][];
  close(): Promise<void>;
}

/** A loopback HTTP endpoint that records every notification posted to it. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks).toString('utf8');
    received.push({ headers: request.headers, rawBody, body: JSON.parse(rawBody) as MetaNotification });
    response.writeHead(receiver.status).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const receiver: WebhookReceiver = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`,
    received,
    status: 200,
    values: (field) =>
      received.flatMap(({ body }) =>
        body.entry.flatMap((entry) => entry.changes.filter((change) => change.field === field)).map((c) => c.value),
      ),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return receiver;
}
