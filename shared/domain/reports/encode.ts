import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { csvHeader, csvRow } from './csv.ts';
import type { ReportCompression, ReportFormat } from './formats.ts';
import { jsonlLine } from './jsonl.ts';
import type { RecordOf, ReportType } from './records.ts';
import { type FileTally, type XlsxOptions, xlsxFile } from './xlsx.ts';

/** Characters of text handed to the upload at a time. */
const CHUNK_CHARS = 16 * 1024;

/** A report's records in report order, a batch at a time (the row source's output). */
export type RecordBatches<T extends ReportType = ReportType> = AsyncIterable<readonly RecordOf<T>[]>;

/**
 * A report file as a stream (CONTRACT §6, §23): the row source → the format's encoder → gzip when asked. Each stage
 * pulls from the one before only as fast as the next takes its output, so memory stays flat in the row count.
 * `options.tally` counts, once the stream has ended, the cells the format had to cut (XLSX only; CSV and JSONL cut
 * nothing).
 */
export function encodeReport<T extends ReportType>(
  reportType: T,
  format: ReportFormat,
  compression: ReportCompression,
  batches: RecordBatches<T>,
  options: { xlsx?: XlsxOptions; tally?: FileTally } = {},
): AsyncIterable<string | Uint8Array> {
  const encoded =
    format === 'xlsx'
      ? xlsxFile(reportType, batches, options.xlsx, options.tally)
      : textFile(batches, format === 'csv' ? csvHeader(reportType) : '', (record) =>
          format === 'csv' ? csvRow(reportType, record) : jsonlLine(reportType, record),
        );
  return compression === 'gzip' ? gzip(encoded) : encoded;
}

/** A text format: the header, then one line per record, in chunks of about CHUNK_CHARS. */
async function* textFile<T extends ReportType>(
  batches: RecordBatches<T>,
  header: string,
  line: (record: RecordOf<T>) => string,
): AsyncGenerator<string> {
  if (header) yield header;
  for await (const batch of batches) {
    let chunk = '';
    for (const record of batch) {
      chunk += line(record);
      // Small chunks stay in V8's young generation and die young; a page-sized string would be promoted.
      if (chunk.length >= CHUNK_CHARS) {
        yield chunk;
        chunk = '';
      }
    }
    if (chunk) yield chunk;
  }
}

/** gzip (node:zlib) over a stream of chunks; an error on either side ends both. */
async function* gzip(source: AsyncIterable<string | Uint8Array>): AsyncGenerator<Uint8Array> {
  const zipped = createGzip();
  const piping = pipeline(Readable.from(source), zipped);
  piping.catch(() => undefined);
  try {
    yield* zipped;
    await piping;
  } finally {
    zipped.destroy();
  }
}
