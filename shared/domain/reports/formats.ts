/**
 * CONTRACT §23: the formats a report file can be written in and its compression. The request names them
 * (`format`, `compression`); the report record carries the stored file's media type.
 */
export const REPORT_FORMATS = ['csv', 'xlsx', 'jsonl'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];
export const DEFAULT_REPORT_FORMAT: ReportFormat = 'csv';

export const REPORT_COMPRESSIONS = ['none', 'gzip'] as const;
export type ReportCompression = (typeof REPORT_COMPRESSIONS)[number];
export const DEFAULT_REPORT_COMPRESSION: ReportCompression = 'none';

const FORMAT_MEDIA_TYPES = {
  csv: 'text/csv',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  jsonl: 'application/x-ndjson',
} as const satisfies Record<ReportFormat, string>;
export const GZIP_MEDIA_TYPE = 'application/gzip';

/** The media types a report record's `format` can hold. */
export const REPORT_MEDIA_TYPES = [...Object.values(FORMAT_MEDIA_TYPES), GZIP_MEDIA_TYPE] as const;
export type ReportMediaType = (typeof REPORT_MEDIA_TYPES)[number];

/** The stored file's media type: the format's, or gzip's when compressed. */
export function reportMediaType(format: ReportFormat, compression: ReportCompression): ReportMediaType {
  return compression === 'gzip' ? GZIP_MEDIA_TYPE : FORMAT_MEDIA_TYPES[format];
}

/** The file name's extension, without the dot: `csv`, `xlsx`, `jsonl`, or with `.gz` appended when compressed. */
export function reportFileExtension(format: ReportFormat, compression: ReportCompression): string {
  return compression === 'gzip' ? `${format}.gz` : format;
}
