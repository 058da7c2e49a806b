import type { Readable } from 'node:stream';

/** Where report files live (S3). Keys are derived from the organisation and report ids only. */
export interface ReportFiles {
  /** Streams `body` into the object (multipart), never holding the whole file; returns the bytes written. */
  upload(key: string, body: Readable): Promise<{ sizeBytes: number }>;
  /** A pre-signed GET URL with a download file name. */
  downloadUrl(key: string, fileName: string, expiresInSeconds: number): Promise<string>;
  /** Deletes the object; deleting one that is gone is no error. */
  delete(key: string): Promise<void>;
}
