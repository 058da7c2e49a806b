import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The Graph API version the simulator serves under, as in `https://graph.facebook.com/v23.0`. */
export const GRAPH_VERSION = 'v23.0';

export interface SimulatorOptions {
  /** The service's inbound webhook URL, where signed notifications are sent. */
  webhookUrl?: string;
  appSecret: string;
}

/**
 * A WhatsApp Cloud API (Graph) simulator on loopback: the service's Graph adapter reaches it through
 * WHATSAPP_GRAPH_URL exactly as it would reach Meta. Requests need a bearer token, errors use Meta's envelope.
 */
export class WhatsAppSimulator {
  #server: Server;
  /** Every Graph request received, for tests and the control API. */
  readonly requests: { method: string; path: string; body: unknown }[] = [];

  constructor(readonly options: SimulatorOptions) {
    this.#server = createServer((request, response) => {
      void this.#handle(request, response);
    });
  }

  async listen(port: number): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, '127.0.0.1', resolve);
    });
    return (this.#server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(request: IncomingMessage, response: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const url = new URL(request.url ?? '/', 'http://localhost');
    const method = request.method ?? 'GET';
    if (url.pathname === '/_simulator/requests' && method === 'GET') {
      return reply(response, 200, { requests: this.requests });
    }
    const prefix = `/${GRAPH_VERSION}/`;
    if (!url.pathname.startsWith(prefix)) return graphError(response, 404, 100, 'Unknown path');
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      return graphError(response, 400, 100, 'Invalid JSON body');
    }
    const path = url.pathname.slice(prefix.length - 1);
    this.requests.push({ method, path, body });
    if (!/^Bearer \S+$/.test(String(request.headers.authorization ?? ''))) {
      return graphError(response, 401, 190, 'Invalid OAuth access token.');
    }
    const groups = /^\/([^/]+)\/groups$/.exec(path);
    if (groups && method === 'GET') {
      return reply(response, 200, { data: { groups: [] }, paging: { cursors: { before: '', after: '' } } });
    }
    return graphError(response, 400, 100, `Unsupported request - method type: ${method.toLowerCase()}`);
  }
}

function reply(response: ServerResponse, status: number, body: unknown) {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

/** Meta's Graph error envelope. */
function graphError(response: ServerResponse, status: number, code: number, message: string) {
  reply(response, status, {
    error: { message, type: code === 190 ? 'OAuthException' : 'GraphMethodException', code, fbtrace_id: 'simulated' },
  });
}
