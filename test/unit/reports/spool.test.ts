import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Spool } from '#shared/domain/reports/spool';

async function drained(spool: Spool): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of spool.drain()) chunks.push(chunk);
  return Buffer.concat(chunks);
}

describe('Spool', () => {
  let directory: string;

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'wpcrm-spool-test-'));
  });

  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('gives back every byte in the order pushed, from memory and from its file, then is empty and reusable', async () => {
    const spool = new Spool(1_000, directory);
    const chunks = Array.from({ length: 40 }, (_, n) => Buffer.alloc(97 + n, n));

    for (const [n, chunk] of chunks.entries()) {
      spool.push(chunk);
      if (n % 3 === 0) await spool.settle();
    }
    const size = spool.size;
    const first = await drained(spool);
    spool.push(Buffer.from('again'));
    await spool.settle();
    const second = await drained(spool);
    await spool.close();

    expect(size).toBe(Buffer.concat(chunks).length);
    expect(first).toEqual(Buffer.concat(chunks));
    expect(second).toEqual(Buffer.from('again'));
    expect(spool.size).toBe(0);
  });

  it('keeps its file unlinked: nothing is left in the directory, whatever ends the process', async () => {
    const spool = new Spool(10, directory);
    spool.push(Buffer.alloc(5_000, 1));

    await spool.settle();

    expect(await readdir(directory)).toEqual([]);
    expect(await drained(spool)).toEqual(Buffer.alloc(5_000, 1));
    await spool.close();
  });

  it('stays in memory below its limit: no file is opened', async () => {
    const spool = new Spool(1_000, join(directory, 'missing'));
    spool.push(Buffer.alloc(1_000, 2));

    await spool.settle();

    expect(await drained(spool)).toEqual(Buffer.alloc(1_000, 2));
    await spool.close();
  });
});
