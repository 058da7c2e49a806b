import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PART_BUFFERS, PART_SIZE, S3ReportFiles } from '#shared/adapters/s3/report-files';
import type { S3Call, S3Rest } from '#shared/adapters/s3/s3-rest';

const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A fake S3 that takes `partDelayMs` per part and records what the upload hands it: the part bodies held at once, the
 * memory they live in, whether a body changed while it was on its way, and every byte in order.
 */
class RecordingS3 {
  readonly held = new Set<Uint8Array>();
  readonly memories = new Set<ArrayBufferLike>();
  maxHeldBytes = 0;
  changedInFlight = 0;
  readonly parts = new Map<number, { length: number; sha: string; copy?: Buffer }>();
  completed = '';

  constructor(
    private readonly partDelayMs: number,
    private readonly keepCopies = false,
  ) {}

  async send(call: S3Call) {
    const answer = (text = '', etag?: string) => ({
      status: 200,
      headers: new Headers(etag ? { etag } : {}),
      text,
    });
    if (call.method === 'POST' && call.query?.uploads !== undefined)
      return answer('<Result><UploadId>up-1</UploadId></Result>');
    if (call.method === 'POST') {
      this.completed = String(call.body);
      return answer();
    }
    const body = call.body as Buffer;
    const partNumber = Number(call.query?.partNumber ?? 1);
    const before = sha(body);
    this.held.add(body);
    this.memories.add(body.buffer);
    this.maxHeldBytes = Math.max(
      this.maxHeldBytes,
      [...this.held].reduce((sum, part) => sum + part.byteLength, 0),
    );
    await pause(this.partDelayMs);
    if (sha(body) !== before) this.changedInFlight += 1;
    this.parts.set(partNumber, {
      length: body.byteLength,
      sha: before,
      copy: this.keepCopies ? Buffer.from(body) : undefined,
    });
    this.held.delete(body);
    return answer('', `"etag-${partNumber}"`);
  }
}

/** `count` chunks of about 16 K characters of CSV-like text with multi-byte characters, as the report worker yields. */
async function* csvText(count: number, producerPauseEvery = 0) {
  for (let index = 0; index < count; index++) {
    if (producerPauseEvery > 0 && index % producerPauseEvery === 0) await pause(1);
    yield `${index},Order ${index} – Anna Müller 🙂,GROUP,ch-1\r\n`.repeat(300);
  }
}

describe('S3ReportFiles.upload: memory bounded whatever the speed ratio', () => {
  it.each([
    { case: 'rows much faster than the upload', partDelayMs: 40, producerPauseEvery: 0 },
    { case: 'the upload much faster than the rows', partDelayMs: 0, producerPauseEvery: 20 },
  ])(
    'never holds more than PART_BUFFERS part buffers, reuses them, and never changes a part on its way: $case',
    async ({ partDelayMs, producerPauseEvery }) => {
      const s3 = new RecordingS3(partDelayMs);
      const chunks = 3_000; // about 40 MiB, eight parts
      const before = process.memoryUsage().arrayBuffers;
      let peakGrowth = 0;
      const sampler = setInterval(() => {
        peakGrowth = Math.max(peakGrowth, process.memoryUsage().arrayBuffers - before);
      }, 2);
      const { sizeBytes } = await new S3ReportFiles(s3 as unknown as S3Rest).upload(
        'org_1/rpt_1.csv',
        csvText(chunks, producerPauseEvery),
      );
      clearInterval(sampler);
      peakGrowth = Math.max(peakGrowth, process.memoryUsage().arrayBuffers - before);

      expect(s3.parts.size).toBeGreaterThanOrEqual(7);
      expect(s3.maxHeldBytes).toBeLessThanOrEqual(PART_BUFFERS * PART_SIZE);
      // Every part lives in one of the same few buffers: no per-part allocation, no concatenated copy.
      expect(s3.memories.size).toBeLessThanOrEqual(PART_BUFFERS);
      expect(s3.changedInFlight).toBe(0);
      // What the upload allocates beyond them: nothing per chunk (text is encoded straight into the part buffers).
      expect(peakGrowth).toBeLessThanOrEqual(PART_BUFFERS * PART_SIZE + 2 * 2 ** 20);
      let expectedBytes = 0;
      for await (const chunk of csvText(chunks)) expectedBytes += Buffer.byteLength(chunk);
      expect(sizeBytes).toBe(expectedBytes);
      expect([...s3.parts.values()].reduce((sum, part) => sum + part.length, 0)).toBe(expectedBytes);
    },
  );

  it('sends the exact bytes in order, every part but the last PART_SIZE long, characters split across parts', async () => {
    const s3 = new RecordingS3(5, true);
    // 4-byte characters at odd offsets, so that part boundaries fall inside them.
    const text = async function* () {
      yield 'x';
      for (let index = 0; index < 1_400; index++) yield `${index};🙂ü€`.repeat(1_000);
      yield Buffer.from('bytes at the end');
    };
    const chunks: Buffer[] = [];
    for await (const chunk of text()) chunks.push(Buffer.from(chunk));
    const expected = Buffer.concat(chunks);

    const { sizeBytes } = await new S3ReportFiles(s3 as unknown as S3Rest).upload('org_1/rpt_2.csv', text());

    const numbers = [...s3.parts.keys()].sort((a, b) => a - b);
    const parts = numbers.map((number) => s3.parts.get(number)!);
    expect(parts.length).toBeGreaterThan(2);
    for (const part of parts.slice(0, -1)) expect(part.length).toBe(PART_SIZE);
    expect(Buffer.concat(parts.map((part) => part.copy!)).equals(expected)).toBe(true);
    expect(sizeBytes).toBe(expected.length);
    expect(s3.completed).toContain(`<PartNumber>${parts.length}</PartNumber><ETag>"etag-${parts.length}"</ETag>`);
  });
});
