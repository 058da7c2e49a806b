import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** When the request's body had arrived (performance.now()). */
  at: number;
}

/** A loopback webhook receiver whose answers a test scripts (default 200), recording every request. */
export class Receiver {
  readonly received: ReceivedRequest[] = [];
  /** Status codes for the next requests to a path, in order; then 200. */
  readonly scripts = new Map<
    string,
    (number | { status: number; headers?: Record<string, string>; body?: string })[]
  >();
  /** While set, every request is answered with this status (an outage), and not recorded. */
  failing: number | undefined;
  /** While true, every request is accepted and never answered (a receiver that hangs), and not recorded. */
  hanging = false;
  #server: Server;
  url = '';

  constructor() {
    this.#server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        // Held until the receiver stops: the sender's attempt times out.
        if (this.hanging) return;
        if (this.failing !== undefined) {
          response.writeHead(this.failing);
          return void response.end();
        }
        this.received.push({
          path: request.url ?? '/',
          headers: request.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          at: performance.now(),
        });
        const next = this.scripts.get(request.url ?? '/')?.shift() ?? 200;
        const { status, headers, body } = typeof next === 'number' ? { status: next, headers: {}, body: 'ok' } : next;
        response.writeHead(status, headers);
        response.end(body ?? 'ok');
      });
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this;
  }

  requestsTo(path: string): ReceivedRequest[] {
    return this.received.filter((request) => request.path === path);
  }

  async stop(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

export function useReceiver(): Receiver {
  const receiver = new Receiver();
  beforeAll(async () => {
    await receiver.start();
  });
  afterAll(async () => {
    await receiver.stop();
  });
  return receiver;
}
