import { crc32 } from 'node:zlib';
import { unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { ZipStream } from '#shared/domain/reports/zip';

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
});
