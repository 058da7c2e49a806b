import { randomUUID } from 'node:crypto';
import { type FileHandle, open, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Bytes kept in memory before they go to the file. */
const MEMORY_BYTES = 1024 * 1024;
/**
 * Bytes read back from the file at a time, each into a fresh buffer. Small on purpose: reading back the 77 MiB sheet
 * of a 1,000,000-row report, 16 KiB reads peaked at 12 MiB of RSS growth, 64 KiB at 28 MiB and 256 KiB at 34 MiB
 * (the large buffers, dead once the upload copied them, waited longer to be collected).
 */
const READ_BYTES = 16 * 1024;

/**
 * Bytes held back until they can be sent (xlsx.ts: a sheet's deflated rows, until its dimension is known): in memory
 * up to 1 MiB, so that a small report never touches the disk, then in a temporary file. The file is unlinked as
 * soon as it is opened, so it is gone with its handle whatever ends the process (a Lambda timeout included), and
 * its blocks are freed at each drain: the disk holds one sheet's deflated rows at most.
 */
export class Spool {
  #memory: Uint8Array[] = [];
  #memoryBytes = 0;
  #file: FileHandle | undefined;
  #fileBytes = 0;

  constructor(
    private readonly memoryLimit = MEMORY_BYTES,
    private readonly directory = tmpdir(),
  ) {}

  /** Bytes held. */
  get size(): number {
    return this.#memoryBytes + this.#fileBytes;
  }

  /** Holds bytes (in memory until the next settle()). */
  push(bytes: Uint8Array): void {
    this.#memory.push(bytes);
    this.#memoryBytes += bytes.length;
  }

  /** Moves what memory holds to the file once it is over the memory limit. */
  async settle(): Promise<void> {
    if (this.#memoryBytes <= this.memoryLimit) return;
    const file = this.#file ?? (await this.#open());
    for (const chunk of this.#memory) {
      for (let done = 0; done < chunk.length; ) {
        const { bytesWritten } = await file.write(chunk, done, chunk.length - done, this.#fileBytes);
        done += bytesWritten;
        this.#fileBytes += bytesWritten;
      }
    }
    this.#memory = [];
    this.#memoryBytes = 0;
  }

  /** Every byte held, in the order pushed; the spool is empty after. */
  async *drain(): AsyncGenerator<Uint8Array> {
    for (let at = 0; at < this.#fileBytes; ) {
      // A fresh buffer each time: the reader may keep what it was given.
      const buffer = Buffer.allocUnsafe(Math.min(READ_BYTES, this.#fileBytes - at));
      const { bytesRead } = await this.#file!.read(buffer, 0, buffer.length, at);
      if (bytesRead === 0) throw new Error('the spool file ended early');
      at += bytesRead;
      yield bytesRead === buffer.length ? buffer : buffer.subarray(0, bytesRead);
    }
    if (this.#fileBytes > 0) await this.#file!.truncate(0);
    this.#fileBytes = 0;
    const memory = this.#memory;
    this.#memory = [];
    this.#memoryBytes = 0;
    yield* memory;
  }

  /** Closes the file (its blocks are freed). */
  async close(): Promise<void> {
    const file = this.#file;
    this.#file = undefined;
    this.#memory = [];
    await file?.close();
  }

  async #open(): Promise<FileHandle> {
    const path = join(this.directory, `wpcrm-spool-${randomUUID()}`);
    const file = await open(path, 'wx+', 0o600);
    try {
      await unlink(path);
    } catch (error) {
      await file.close();
      throw error;
    }
    this.#file = file;
    return file;
  }
}
