import { constants, crc32, deflateRawSync } from 'node:zlib';

/**
 * A streamed zip archive (PKWARE APPNOTE 6.3, no zip64) whose entries are deflated by node:zlib a chunk at a time:
 * each chunk is its own raw deflate stream ended by a sync flush (byte-aligned, not final) and the last by a final
 * block, so that their concatenation is one valid deflate stream. An entry's sizes and CRC-32 follow its data (a data
 * descriptor), so nothing is held back. Bytes come out through `take()`; only the central directory's few fields per
 * entry are kept until `finish()`.
 *
 * Ours rather than fflate's `Zip`: fflate loads node:worker_threads and builds its deflate tables when imported, which
 * cost the report worker more import time than the whole writer (docs/reports.md, "Why our own XLSX writer").
 */
export class ZipStream {
  #chunks: Uint8Array[] = [];
  #offset = 0;
  #entries: { name: Buffer; crc: number; compressed: number; size: number; offset: number }[] = [];
  #open: { name: Buffer; crc: number; compressed: number; size: number; offset: number } | undefined;

  constructor(private readonly level: number) {}

  /** Starts an entry; the previous one must have had its final chunk. */
  begin(filename: string): void {
    if (this.#open) throw new Error(`zip entry ${this.#open.name} is still open`);
    const name = Buffer.from(filename, 'utf8');
    this.#open = { name, crc: 0, compressed: 0, size: 0, offset: this.#offset };
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(FLAGS, 6);
    header.writeUInt16LE(8, 8);
    header.writeUInt16LE(DOS_TIME, 10);
    header.writeUInt16LE(DOS_DATE, 12);
    // CRC-32 and sizes (14–25) stay 0: the data descriptor carries them.
    header.writeUInt16LE(name.length, 26);
    this.#emit(header);
    this.#emit(name);
  }

  /** Deflates and emits a chunk of the open entry; the final one closes it. */
  write(data: Uint8Array, final = false): void {
    const entry = this.#open;
    if (!entry) throw new Error('no zip entry is open');
    entry.crc = crc32(data, entry.crc);
    entry.size += data.length;
    const finishFlush = final ? constants.Z_FINISH : constants.Z_SYNC_FLUSH;
    const deflated = deflateRawSync(data, { level: this.level, finishFlush });
    entry.compressed += deflated.length;
    this.#emit(deflated);
    if (!final) return;
    this.#close(entry);
  }

  /**
   * Data of the open entry deflated apart (a DeflateRun) and sent by the caller itself, right after the bytes that
   * take() handed out last: the entry counts its sizes, its CRC-32 takes the run's, and the archive's offsets move
   * past it. This is how a part whose first bytes are known only at its end (a sheet's dimension, xlsx.ts) is
   * written without holding its data in memory: the data is deflated first and kept aside, then the entry begins
   * with its head, the kept data follows, then its end.
   */
  splice(run: DeflateRun): void {
    const entry = this.#open;
    if (!entry) throw new Error('no zip entry is open');
    if (this.#chunks.length > 0) throw new Error('take() the bytes before the spliced data first');
    entry.crc = crc32Combine(entry.crc, run.crc, run.size);
    entry.size += run.size;
    entry.compressed += run.compressed;
    this.#offset += run.compressed;
    if (this.#offset > MAX_32) throw new RangeError('the zip archive is over 4 GiB');
  }

  #close(entry: { name: Buffer; crc: number; compressed: number; size: number; offset: number }) {
    if (entry.size > MAX_32 || entry.compressed > MAX_32) throw new RangeError(`zip entry ${entry.name} is over 4 GiB`);
    const descriptor = Buffer.alloc(16);
    descriptor.writeUInt32LE(0x08074b50, 0);
    descriptor.writeUInt32LE(entry.crc, 4);
    descriptor.writeUInt32LE(entry.compressed, 8);
    descriptor.writeUInt32LE(entry.size, 12);
    this.#emit(descriptor);
    this.#entries.push(entry);
    this.#open = undefined;
  }

  /** A whole entry at once. */
  file(filename: string, text: string): void {
    this.begin(filename);
    this.write(Buffer.from(text, 'utf8'), true);
  }

  /** Writes the central directory and its end record: the archive is complete. */
  finish(): void {
    if (this.#open) throw new Error(`zip entry ${this.#open.name} is still open`);
    const start = this.#offset;
    for (const entry of this.#entries) {
      const header = Buffer.alloc(46);
      header.writeUInt32LE(0x02014b50, 0);
      header.writeUInt16LE(20, 4);
      header.writeUInt16LE(20, 6);
      header.writeUInt16LE(FLAGS, 8);
      header.writeUInt16LE(8, 10);
      header.writeUInt16LE(DOS_TIME, 12);
      header.writeUInt16LE(DOS_DATE, 14);
      header.writeUInt32LE(entry.crc, 16);
      header.writeUInt32LE(entry.compressed, 20);
      header.writeUInt32LE(entry.size, 24);
      header.writeUInt16LE(entry.name.length, 28);
      header.writeUInt32LE(entry.offset, 42);
      this.#emit(header);
      this.#emit(entry.name);
    }
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(this.#entries.length, 8);
    end.writeUInt16LE(this.#entries.length, 10);
    end.writeUInt32LE(this.#offset - start, 12);
    end.writeUInt32LE(start, 16);
    this.#emit(end);
  }

  /** The bytes produced since the last call. */
  take(): Uint8Array[] {
    const chunks = this.#chunks;
    this.#chunks = [];
    return chunks;
  }

  #emit(bytes: Uint8Array) {
    this.#chunks.push(bytes);
    this.#offset += bytes.length;
    if (this.#offset > MAX_32) throw new RangeError('the zip archive is over 4 GiB');
  }
}

/**
 * A run of an entry's data deflated apart from the archive (ZipStream.splice): each chunk is its own raw deflate
 * stream ended by a sync flush, as ZipStream writes them, so the runs and the entry's own chunks join into one
 * deflate stream. Keeps the run's CRC-32 and sizes.
 */
export class DeflateRun {
  crc = 0;
  size = 0;
  compressed = 0;

  constructor(private readonly level: number) {}

  /** The chunk deflated (byte-aligned, not final). */
  deflate(data: Uint8Array): Uint8Array {
    this.crc = crc32(data, this.crc);
    this.size += data.length;
    const deflated = deflateRawSync(data, { level: this.level, finishFlush: constants.Z_SYNC_FLUSH });
    this.compressed += deflated.length;
    return deflated;
  }
}

/** CRC-32's polynomial, bit-reversed (bit 31 is x⁰). */
const POLY = 0xedb88320;

/** a·b modulo the CRC-32 polynomial, both bit-reversed (GF(2) polynomials of degree < 32). */
function multiplyModP(a: number, b: number): number {
  let product = 0;
  let factor = b;
  for (let bit = 0x8000_0000; bit !== 0; bit >>>= 1) {
    if (a & bit) product ^= factor;
    factor = factor & 1 ? (factor >>> 1) ^ POLY : factor >>> 1;
  }
  return product >>> 0;
}

/**
 * The CRC-32 of A followed by B from the CRC-32s of A and B and B's length. CRC-32 is affine: appending B to A
 * multiplies A's remainder by x^(8·|B|) modulo the polynomial and adds B's own CRC, whose pre- and post-inversion
 * cancel out in the sum. x^(8n) is found by squaring (log n multiplications).
 */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  let power = 0x8000_0000; // x⁰
  let square = 0x0080_0000; // x⁸: one byte
  for (let n = lengthB; n > 0; n = Math.floor(n / 2)) {
    if (n % 2 === 1) power = multiplyModP(power, square);
    square = multiplyModP(square, square);
  }
  return (multiplyModP(power, crcA) ^ crcB) >>> 0;
}

const MAX_32 = 0xffff_ffff;
/** Bit 3: sizes and CRC-32 in a data descriptor after the data. */
const FLAGS = 0x0008;
/** 1980-01-01 00:00, the earliest DOS time: the archive's bytes depend on its content alone. */
const DOS_TIME = 0;
const DOS_DATE = (0 << 9) | (1 << 5) | 1;
