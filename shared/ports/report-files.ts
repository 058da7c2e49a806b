/** Where report files live (S3). Keys are derived from the organisation and report ids only. */
export interface ReportFiles {
  /**
   * Streams `body` (text or bytes, a Readable or any async iterable) into the object (multipart), never holding the
   * whole file, and reading it only as fast as it is sent; returns the bytes written. `contentType` is stored with
   * the object. @default 'text/csv; charset=utf-8'
   */
  upload(key: string, body: AsyncIterable<string | Uint8Array>, contentType?: string): Promise<{ sizeBytes: number }>;
  /** A pre-signed GET URL serving the file as `contentType` with a download file name. */
  downloadUrl(key: string, fileName: string, expiresInSeconds: number, contentType?: string): Promise<string>;
  /** Deletes the object; deleting one that is gone is no error. */
  delete(key: string): Promise<void>;
}
