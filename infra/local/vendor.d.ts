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
  }
}
