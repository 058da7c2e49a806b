import type { OrgFiles } from '#shared/ports/org-admin-store';
import { S3Error, type S3Rest } from './s3-rest.ts';

/** An organisation's objects in the reports bucket: ListObjectsV2 by prefix, DeleteObject one by one. */
export class S3OrgFiles implements OrgFiles {
  constructor(private readonly s3: S3Rest) {}

  async list(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const query: Record<string, string> = { 'list-type': '2', prefix };
      if (token) query['continuation-token'] = token;
      const { text } = await this.s3.send({ method: 'GET', key: '', query });
      for (const match of text.matchAll(/<Key>([^<]*)<\/Key>/g)) keys.push(decodeXml(match[1]!));
      token = /<IsTruncated>true<\/IsTruncated>/.test(text)
        ? /<NextContinuationToken>([^<]*)<\/NextContinuationToken>/.exec(text)?.[1]
        : undefined;
    } while (token);
    return keys;
  }

  async delete(key: string): Promise<void> {
    try {
      await this.s3.send({ method: 'DELETE', key });
    } catch (error) {
      if (!(error instanceof S3Error && error.statusCode === 404)) throw error;
    }
  }
}

const decodeXml = (text: string) =>
  text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
