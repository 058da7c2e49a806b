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

const MAX_32 = 0xffff_ffff;
/** Bit 3: sizes and CRC-32 in a data descriptor after the data. */
const FLAGS = 0x0008;
/** 1980-01-01 00:00, the earliest DOS time: the archive's bytes depend on its content alone. */
const DOS_TIME = 0;
const DOS_DATE = (0 << 9) | (1 << 5) | 1;
