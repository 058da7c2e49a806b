import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback HTTP server that tracks the requests it is handling, so that `close()` lets them finish before any
 * connection is cut (the local fronts of `npm start` and `npm run start:cdk`). A handler that throws answers
 * `onError`'s response, or ends one already started.
 */
export class DrainingServer {
  readonly #server: Server;
  readonly #handling = new Set<Promise<void>>();

  constructor(
    handle: (request: IncomingMessage, response: ServerResponse) => Promise<void>,
    onError: (response: ServerResponse) => void,
  ) {
    this.#server = createServer((request, response) => {
      const handling = handle(request, response).catch(() => {
        if (!response.headersSent) onError(response);
        else response.end();
      });
      this.#handling.add(handling);
      void handling.finally(() => this.#handling.delete(handling));
    });
    this.#server.keepAliveTimeout = 5_000;
  }

  async listen(port: number): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, '127.0.0.1', resolve);
    });
    return (this.#server.address() as AddressInfo).port;
  }

  /** Stops accepting connections, lets the requests being handled finish, then closes every connection. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    while (this.#handling.size > 0) await Promise.allSettled([...this.#handling]);
    this.#server.closeAllConnections();
    await closed;
  }
}
