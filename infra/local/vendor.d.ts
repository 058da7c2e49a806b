declare module 'dynalite' {
  import type { Server } from 'node:http';
  export default function dynalite(options?: {
    path?: string;
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
    maxItemSizeKb?: number;
  }): Server;
}

declare module 's3rver' {
  export default class S3rver {
    constructor(options: {
      port?: number;
      address?: string;
      silent?: boolean;
      directory: string;
      configureBuckets?: { name: string; configs?: (string | Buffer)[] }[];
      resetOnClose?: boolean;
      allowMismatchedSignatures?: boolean;
    });
    run(): Promise<{ address: string; port: number }>;
    close(): Promise<void>;
    /** Creates the configured buckets (what run() does before it listens). */
    configureBuckets(): Promise<void>;
    /** s3rver is a Koa application: its request handler. */
    callback(): (request: import('node:http').IncomingMessage, response: import('node:http').ServerResponse) => void;
  }
}
