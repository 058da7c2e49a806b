import { crc32 } from 'node:zlib';
import { unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { crc32Combine, DeflateRun, ZipStream } from '#shared/domain/reports/zip';

/** The central directory's entries: name, CRC-32 and sizes, as a reader finds them from the end record. */
function centralDirectory(zip: Buffer) {
  const end = zip.length - 22;
  expect(zip.readUInt32LE(end)).toBe(0x06054b50);
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries: { name: string; crc: number; compressed: number; size: number; offset: number }[] = [];
  for (let index = 0; index < count; index++) {
    expect(zip.readUInt32LE(at)).toBe(0x02014b50);
    const nameLength = zip.readUInt16LE(at + 28);
    entries.push({
      name: zip.toString('utf8', at + 46, at + 46 + nameLength),
      crc: zip.readUInt32LE(at + 16),
      compressed: zip.readUInt32LE(at + 20),
      size: zip.readUInt32LE(at + 24),
      offset: zip.readUInt32LE(at + 42),
    });
    at += 46 + nameLength;
  }
  return entries;
}

describe('ZipStream', () => {
  it('writes entries of many deflated chunks that a reader inflates whole, with their CRC-32 and sizes', () => {
    const zip = new ZipStream(6);
    const chunks = Array.from({ length: 5 }, (_, n) =>
      Buffer.from(`<row r="${n}">${'Müller, ✓ '.repeat(5_000)}</row>`),
    );
    const whole = Buffer.concat(chunks);

    zip.begin('xl/worksheets/sheet1.xml');
    for (const [n, chunk] of chunks.entries()) zip.write(chunk, n === chunks.length - 1);
    zip.file('[Content_Types].xml', '<Types/>');
    zip.file('empty.xml', '');
    zip.finish();
    const bytes = Buffer.concat(zip.take());

    expect(unzipSync(bytes)).toEqual({
      'xl/worksheets/sheet1.xml': new Uint8Array(whole),
      '[Content_Types].xml': new Uint8Array(Buffer.from('<Types/>')),
      'empty.xml': new Uint8Array(0),
    });
    const entries = centralDirectory(bytes);
    expect(entries.map(({ name, crc, size }) => ({ name, crc, size }))).toEqual([
      { name: 'xl/worksheets/sheet1.xml', crc: crc32(whole), size: whole.length },
      { name: '[Content_Types].xml', crc: crc32('<Types/>'), size: 8 },
      { name: 'empty.xml', crc: 0, size: 0 },
    ]);
    for (const entry of entries) {
      expect(bytes.readUInt32LE(entry.offset)).toBe(0x04034b50);
      const dataStart = entry.offset + 30 + entry.name.length;
      expect(bytes.readUInt32LE(dataStart + entry.compressed)).toBe(0x08074b50);
      expect(bytes.readUInt32LE(dataStart + entry.compressed + 4)).toBe(entry.crc);
    }
    expect(entries[0]!.compressed).toBeLessThan(whole.length / 10);
  });

  it('hands out its bytes as they are made, and the same content always gives the same bytes', () => {
    const make = () => {
      const zip = new ZipStream(6);
      zip.begin('a.xml');
      zip.write(Buffer.from('<a>'));
      const early = zip.take();
      zip.write(Buffer.from('</a>'), true);
      zip.finish();
      return { early, all: Buffer.concat([...early, ...zip.take()]) };
    };

    const first = make();

    expect(first.early.length).toBeGreaterThan(0);
    expect(first.all).toEqual(make().all);
  });

  it('refuses a second entry while one is open', () => {
    const zip = new ZipStream(6);
    zip.begin('a.xml');

    expect(() => zip.begin('b.xml')).toThrow('still open');
    expect(() => zip.finish()).toThrow('still open');
  });

  it('splices data deflated apart between the head and the end of an entry: one deflate stream, one CRC-32', () => {
    const head = Buffer.from('<worksheet><dimension ref="A1:C3"/><sheetData>');
    const rows = Array.from({ length: 4 }, (_, n) =>
      Buffer.from(`<row r="${n + 2}">${'Müller ✓ '.repeat(3_000)}</row>`),
    );
    const end = Buffer.from('</sheetData></worksheet>');
    const whole = Buffer.concat([head, ...rows, end]);
    const run = new DeflateRun(6);
    const held = rows.map((row) => run.deflate(row));

    const zip = new ZipStream(6);
    zip.file('first.xml', '<a/>');
    zip.begin('xl/worksheets/sheet1.xml');
    zip.write(head);
    const bytes = [...zip.take(), ...held];
    zip.splice(run);
    zip.write(end, true);
    zip.file('last.xml', '<b/>');
    zip.finish();
    const archive = Buffer.concat([...bytes, ...zip.take()]);

    expect(unzipSync(archive)).toEqual({
      'first.xml': new Uint8Array(Buffer.from('<a/>')),
      'xl/worksheets/sheet1.xml': new Uint8Array(whole),
      'last.xml': new Uint8Array(Buffer.from('<b/>')),
    });
    const entries = centralDirectory(archive);
    expect(entries[1]).toMatchObject({ crc: crc32(whole), size: whole.length });
    // The entry after the spliced one starts where the directory says.
    expect(archive.readUInt32LE(entries[2]!.offset)).toBe(0x04034b50);
  });

  it('refuses to splice before the bytes ahead of the spliced data were taken', () => {
    const zip = new ZipStream(6);
    zip.begin('a.xml');
    zip.write(Buffer.from('<a>'));

    expect(() => zip.splice(new DeflateRun(6))).toThrow('take()');
  });
});

describe('crc32Combine', () => {
  it('gives the CRC-32 of A followed by B from their CRC-32s and B’s length, whatever the lengths', () => {
    const data = Buffer.from(Array.from({ length: 70_000 }, (_, n) => (n * 7919 + (n >> 3)) & 0xff));

    for (const split of [0, 1, 2, 7, 8, 255, 1_024, 33_333, 69_999, 70_000]) {
      const a = data.subarray(0, split);
      const b = data.subarray(split);
      expect(crc32Combine(crc32(a), crc32(b), b.length), `split at ${split}`).toBe(crc32(data));
    }
    // A long run (16 MiB of zeros, as node computes it).
    const zeros = Buffer.alloc(16 * 1024 * 1024);
    expect(crc32Combine(crc32('head'), crc32(zeros), zeros.length)).toBe(crc32(zeros, crc32('head')));
  });

  it('combines runs past 2³¹ bytes as it combines short ones (associative: no 32-bit overflow in the length)', () => {
    const [a, b, c] = [0x1234_5678, 0x9abc_def0, 0x0f0f_f0f0];
    const [lengthB, lengthC] = [3 * 2 ** 30 + 17, 2 ** 31 + 5];

    expect(crc32Combine(crc32Combine(a, b, lengthB), c, lengthC)).toBe(
      crc32Combine(a, crc32Combine(b, c, lengthC), lengthB + lengthC),
    );
  });
});
