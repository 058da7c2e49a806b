import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CONTROL_PREFIX, SimulatorControls } from './control-api.ts';
import { throwTransportFault } from './faults.ts';
import { GraphGroupsApi } from './graph-groups.ts';
import { GraphMessagesApi } from './graph-messages.ts';
import { decodeSegment, parseJson, readBody, send } from './http.ts';
import { GraphFailure } from './meta.ts';
import type { Reply, RequestLogEntry, SimulatorOptions } from './types.ts';

export type { ReplayFilter } from './notifications.ts';
export {
  FAULT_MODES,
  type FaultMode,
  type FaultSpec,
  type GroupScript,
  type GroupView,
  type MessageStatus,
  type MessageView,
  type RequestLogEntry,
  type SettingsScript,
  SimulatorError,
  type SimulatorOptions,
} from './types.ts';
export { DEFAULT_VARIANTS, VARIANT_PRESETS, type VariantScope, type Variants } from './variants.ts';

/** The Graph API version the simulator serves under, as in `https://graph.facebook.com/v23.0`. */
export const GRAPH_VERSION = 'v23.0';

/**
 * A WhatsApp Cloud API (Graph) simulator on loopback: the service's Graph adapter reaches it through
 * WHATSAPP_GRAPH_URL exactly as it would reach Meta. It keeps groups, join requests and sent messages per phone-number
 * id, answers with Meta's shapes and error envelope, and sends signed notifications to `webhookUrl`. Outcomes and
 * faults are scripted through `/_simulator/…` (README.md) or the same methods in-process.
 *
 * This file is the wiring: HTTP, faults, latency and routing. The Groups API is graph-groups.ts, messages
 * graph-messages.ts, the notifications notifications.ts and the controls control-api.ts.
 */
export class WhatsAppSimulator extends SimulatorControls {
  #server: Server;
  #groupsApi: GraphGroupsApi;
  #messagesApi: GraphMessagesApi;
  #latencyTimers = new Set<NodeJS.Timeout>();

  constructor(options: SimulatorOptions) {
    super(options);
    this.#groupsApi = new GraphGroupsApi(this.store, this.notifier, this.variants);
    this.#messagesApi = new GraphMessagesApi(this.store, this.notifier, this.variants);
    this.#server = createServer((request, response) => {
      void this.#handle(request, response).catch((error: unknown) => {
        if (!response.headersSent) send(response, 500, { error: { message: (error as Error).message } });
      });
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
    this.notifier.closed = true;
    for (const timer of this.#latencyTimers) clearTimeout(timer);
    await this.webhooks.cancel();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(request: IncomingMessage, response: ServerResponse) {
    // A web page open in the developer's browser must not drive the simulator (CONTRACT §21): it signs what it sends
    // to the stack with the stack's app secret. No `Origin`, and the Host of this loopback port only.
    const port = (this.#server.address() as AddressInfo | null)?.port;
    const host = (request.headers.host ?? '').toLowerCase();
    if (
      request.headers.origin !== undefined ||
      !['127.0.0.1', 'localhost', '[::1]'].some((name) => host === `${name}:${port}`)
    ) {
      return send(response, 403, { error: { message: 'the simulator answers the local stack and its tools only' } });
    }
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const method = (request.method ?? 'GET').toUpperCase();
    const raw = await readBody(request);
    if (raw === undefined) return send(response, 413, { error: { message: 'body too large' } });
    if (url.pathname.startsWith(`${CONTROL_PREFIX}/`)) return this.handleControl(method, url.pathname, raw, response);

    const prefix = `/${GRAPH_VERSION}/`;
    if (!url.pathname.startsWith(prefix)) {
      const failure = new GraphFailure(404, 100, { details: `the simulator serves ${prefix}…, not ${url.pathname}` });
      return send(response, failure.status, failure.body);
    }
    const path = url.pathname.slice(prefix.length - 1);
    const entry: RequestLogEntry = {
      at: new Date().toISOString(),
      method,
      path,
      query: Object.fromEntries(url.searchParams),
      body: parseJson(raw) ?? (raw || undefined),
    };
    this.requestLog.push(entry);
    this.maxInFlight = Math.max(this.maxInFlight, ++this.inFlight);
    response.once('close', () => this.inFlight--);
    const fault = this.faults.take(method, path, entry.body);
    entry.fault = fault?.mode;
    if (fault?.mode === 'hang') return;
    if (this.options.latencyMs) await this.#sleep(this.options.latencyMs);

    let reply: Reply;
    try {
      if (fault) throwTransportFault(fault);
      const origin = `http://${request.headers.host ?? '127.0.0.1'}/${GRAPH_VERSION}`;
      reply = this.#graph(method, path, url.searchParams, request.headers.authorization, raw, origin);
    } catch (error) {
      if (!(error instanceof GraphFailure)) throw error;
      reply = { status: error.status, body: error.body, headers: error.headers };
    }
    // The action is done (webhooks included); only the answer is lost, as in an indeterminate outcome.
    if (fault?.mode === 'timeout-after-commit') return;
    if (fault?.mode === 'reset-after-commit') return void request.socket.destroy();
    entry.status = reply.status;
    send(response, reply.status, reply.body, reply.headers);
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#latencyTimers.delete(timer);
        resolve();
      }, ms);
      timer.unref();
      this.#latencyTimers.add(timer);
    });
  }

  #graph(
    method: string,
    path: string,
    query: URLSearchParams,
    authorization: string | undefined,
    raw: string,
    origin: string,
  ): Reply {
    if (!/^Bearer\s+\S+/.test(authorization ?? '')) {
      throw new GraphFailure(401, 190, { message: 'Invalid OAuth access token - Cannot parse access token' });
    }
    const body = raw ? parseJson(raw) : {};
    if (!body) throw new GraphFailure(400, 100, { details: 'the request body is not a JSON object' });
    const [id = '', edge = '', ...rest] = path.split('/').filter(Boolean).map(decodeSegment);
    const route = rest.length ? '' : `${method} ${edge}`;
    const groups = this.#groupsApi;
    switch (route) {
      case 'POST groups':
        return groups.create(id, body);
      case 'GET groups':
        return groups.list(id, query, origin);
      case 'POST messages':
        return this.#messagesApi.send(id, body);
      case 'GET ':
        return groups.info(id, query);
      case 'POST ':
        return groups.updateSettings(id, body);
      case 'DELETE ':
        return groups.delete(id);
      case 'GET invite_link':
        return groups.inviteLink(id, false, body);
      case 'POST invite_link':
        return groups.inviteLink(id, true, body);
      case 'GET join_requests':
        return groups.joinRequests(id);
      case 'POST join_requests':
        return groups.approveJoinRequests(id, body);
      case 'DELETE join_requests':
        return groups.rejectJoinRequests(id, body);
      case 'DELETE participants':
        return groups.removeParticipants(id, body);
      default:
        throw new GraphFailure(400, 100, {
          message: `Unsupported ${method.toLowerCase()} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation`,
        });
    }
  }
}
