import type { GenericSchema } from 'valibot';
import { LAYOUTS, textOf } from './csv.ts';
import { RECORD_KINDS, type RecordOf, type ReportType } from './records.ts';
import { Spool } from './spool.ts';
import { DeflateRun, ZipStream } from './zip.ts';

/**
 * A streamed XLSX (SpreadsheetML) writer over our streamed zip (zip.ts; CONTRACT §23): the same columns and rows as the
 * CSV, typed cells, a frozen header with an auto-filter, columns as wide as their type's format and their header, and
 * a further sheet (with its own header) past Excel's row limit. Rows are deflated as they come; a sheet's `<dimension>`
 * (its used range, which comes before its rows) is known only when the sheet ends, so its deflated rows wait in a
 * spool (spool.ts: memory, then a temporary file) and the sheet's part is written when it ends: its head with the
 * dimension, the spooled rows, its end (ZipStream.splice). Memory stays flat whatever the row count; the disk holds
 * one sheet's deflated rows at most. The workbook parts that name the sheets are written after them (a zip's order
 * does not matter to its readers).
 *
 * Why not exceljs's streaming WorkbookWriter: bundled into the report worker it weighs more than the whole worker's
 * budget (docs/reports.md, "Why our own XLSX writer", has the figures).
 */

/** Excel's rows per sheet, the header included. */
export const XLSX_MAX_ROWS = 1_048_576;
/** Excel's characters per cell (UTF-16 code units of the cell's value, after `_xHHHH_` is read). */
export const XLSX_MAX_CELL_CHARS = 32_767;
/** Ends a text cut to XLSX_MAX_CELL_CHARS, inside the limit, so that a reader sees the value is not whole. */
export const XLSX_TRUNCATION_MARK = '…[truncated]';
/** A sheet's XML is cut before zip's 4 GiB entry limit (zip.ts writes no zip64). */
const MAX_SHEET_BYTES = 0xf000_0000;
/**
 * A sheet's deflated rows held in the spool at most (a further sheet starts past it): Lambda's /tmp is 512 MB. Far
 * above a sheet of XLSX_MAX_ROWS usual rows (about 80 MiB); reached only by rows of long, incompressible text.
 */
const MAX_SPOOL_BYTES = 384 * 1024 * 1024;
/** XML text handed to the deflate stream at a time (each is deflated on its own: large enough to compress well). */
const PUSH_CHARS = 256 * 1024;
/** Days between Excel's epoch (1899-12-30, the 1900 system) and 1970-01-01. */
const EPOCH_DAYS = 25_569;
const DAY_MS = 86_400_000;
/** 1900-03-01: earlier serials are off by Excel's 1900 leap-year bug, so earlier times are written as text. */
const FIRST_EXACT_MS = Date.UTC(1900, 2, 1);
const LAST_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** The date-time format of time cells (UTC, to the millisecond, as the CSV writes them). */
const TIME_FORMAT = 'yyyy-mm-dd hh:mm:ss.000';
/** cellXfs indices of styles.xml. */
const STYLE_TIME = 1;
const STYLE_HEADER = 2;

export interface XlsxOptions {
  /** Rows per sheet, the header included (tests inject a small one). @default XLSX_MAX_ROWS */
  rowsPerSheet?: number;
  /** Deflate level, 1 (fastest) to 9. @default 6 */
  level?: 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9;
  /** Deflated sheet bytes the spool keeps in memory before it uses a file (tests inject a small one). */
  spoolMemoryBytes?: number;
  /** Deflated rows a sheet holds back at most before a further sheet starts (tests inject a small one). */
  maxSpoolBytes?: number;
}

/** What the writer did to the data, for the report record (CONTRACT §23). */
export interface FileTally {
  /** Text cells cut to XLSX_MAX_CELL_CHARS (with XLSX_TRUNCATION_MARK at their end). */
  truncatedCells: number;
}

const NS_MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const NS_REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const NS_PKG_REL = 'http://schemas.openxmlformats.org/package/2006/relationships';
const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';

/**
 * What a cell's XML text cannot hold as it is: markup, CR, the characters XML 1.0 forbids (C0 controls but tab, LF,
 * CR; U+FFFE, U+FFFF), unpaired surrogates, and text that reads as Excel's own `_xHHHH_` escape.
 */
const XML_SPECIAL =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: escaping them is the point
  /[&<>\r\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|_x[0-9A-Fa-f]{4}_|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '\r': '&#13;' };

function escapeSpecial(match: string): string {
  // Excel's escape as written text: its underscore escaped (`_x005F_`), as ECMA-376 Part 1 says (ST_Xstring).
  if (match.length > 1) return `_x005F${match}`;
  const escaped = ESCAPES[match];
  if (escaped) return escaped;
  const code = match.charCodeAt(0);
  // An unpaired surrogate (records imported before the import refused them): U+FFFD, as the CSV's UTF-8 has it.
  if (code >= 0xd800 && code <= 0xdfff) return '\uFFFD';
  // A character XML cannot hold, kept through Excel's escape (uppercase hex, as Excel writes it).
  return `_x${code.toString(16).toUpperCase().padStart(4, '0')}_`;
}

/**
 * Text as a cell's XML text: `&`, `<`, `>` escaped; CR kept as a character reference (XML would turn a raw one into
 * LF); the characters XML 1.0 cannot hold kept as Excel's `_xHHHH_`; text that looks like that escape escaped itself
 * (`_x005F_`), so that Excel shows it as written; an unpaired surrogate as U+FFFD.
 */
export function xmlCellText(text: string): string {
  return text.replace(XML_SPECIAL, escapeSpecial);
}

/**
 * A text cut to the characters a cell holds, ending with XLSX_TRUNCATION_MARK (never between the two halves of a
 * surrogate pair); undefined when it fits.
 */
export function truncatedCellText(text: string): string | undefined {
  if (text.length <= XLSX_MAX_CELL_CHARS) return undefined;
  let end = XLSX_MAX_CELL_CHARS - XLSX_TRUNCATION_MARK.length;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return text.slice(0, end) + XLSX_TRUNCATION_MARK;
}

function columnName(index: number): string {
  let name = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

/** Excel's width of its widest column (characters). */
const MAX_COLUMN_WIDTH = 60;

/**
 * The characters a column's usual value takes, from its §9 type: a time its format; a boolean `FALSE`; a number the
 * 11 characters Excel's General format shows before it rounds; an enum its longest value; text by its bound (phone
 * numbers, ids, names and addresses, long text); a list or an object a wide column (the cap keeps the sheet usable).
 */
function contentChars(schema: GenericSchema, isTime: boolean): number {
  if (isTime) return TIME_FORMAT.length;
  const inner = (schema.type === 'optional' ? (schema as unknown as { wrapped: GenericSchema }).wrapped : schema) as
    | GenericSchema
    | (GenericSchema & { options: string[]; pipe?: { type: string; requirement?: unknown }[] });
  switch (inner.type) {
    case 'boolean':
      return 'FALSE'.length;
    case 'number':
      return 11;
    case 'picklist':
      return Math.max(...(inner as { options: string[] }).options.map((option) => option.length));
    case 'string': {
      const pipe = (inner as { pipe?: { type: string; requirement?: unknown }[] }).pipe ?? [];
      const max = Number(pipe.find((action) => action.type === 'max_length')?.requirement ?? Number.POSITIVE_INFINITY);
      return max <= 64 ? 16 : max <= 256 ? 28 : max <= 2048 ? 32 : 48;
    }
    case 'array':
      return 32;
    default:
      return 48;
  }
}

/**
 * Each column's width (CONTRACT §23: wide enough for its type's format and its header, so a time never shows `###`).
 * Excel's unit is the default font's digit width (Calibri 11: 7 px) plus 5 px of padding; a tenth more covers a
 * font with wider digits standing in for Calibri (LibreOffice without Carlito). The header is bold and shares its
 * cell with the auto-filter's button (about 2 characters).
 */
export function columnWidths(reportType: ReportType): number[] {
  const { columns, isTime } = LAYOUTS[reportType];
  const entries = RECORD_KINDS[reportType].schema.entries as Record<string, GenericSchema>;
  return columns.map((column, at) => {
    const content = Math.ceil(contentChars(entries[column]!, isTime[at]!) * 1.1) + 2;
    const header = Math.ceil(column.length * 1.2) + 3;
    return Math.min(MAX_COLUMN_WIDTH, Math.max(content, header));
  });
}

function sheetName(reportType: ReportType, index: number): string {
  return index === 1 ? reportType : `${reportType} ${index}`;
}

/**
 * The XLSX file of a report, as zip bytes: `batches` are the records in report order. Sheet `n` holds rows
 * `(n-1)·(rowsPerSheet-1)+1 …`, each sheet starting with the header row. `tally` (when given) counts what was cut.
 */
export async function* xlsxFile<T extends ReportType>(
  reportType: T,
  batches: AsyncIterable<readonly RecordOf<T>[]>,
  options: XlsxOptions = {},
  tally: FileTally = { truncatedCells: 0 },
): AsyncGenerator<Uint8Array> {
  const rowsPerSheet = options.rowsPerSheet ?? XLSX_MAX_ROWS;
  if (rowsPerSheet < 2) throw new RangeError('a sheet holds the header and at least one row');
  const level = options.level ?? 6;
  const markup = new SheetMarkup(reportType, tally);
  const zip = new ZipStream(level);
  const sheets = new Sheets(zip, markup, {
    reportType,
    level,
    rowsPerSheet,
    maxSpoolBytes: options.maxSpoolBytes ?? MAX_SPOOL_BYTES,
    spoolMemoryBytes: options.spoolMemoryBytes,
  });
  try {
    for await (const batch of batches) {
      for (const record of batch) {
        if (sheets.full()) yield* sheets.close();
        sheets.add(record as Record<string, unknown>);
      }
      await sheets.settle();
    }
    yield* sheets.close();
  } finally {
    await sheets.dispose();
  }
  writeWorkbook(zip, sheets.written, markup.lastColumn);
  zip.finish();
  yield* zip.take();
}

/** A report type's sheet XML: its cells and rows, and a sheet's head (with its dimension) and end. */
class SheetMarkup {
  readonly lastColumn: string;
  readonly #columns: readonly string[];
  readonly #isTime: readonly boolean[];
  readonly #names: string[];
  readonly #cols: string;
  readonly #headerRow: string;

  constructor(
    reportType: ReportType,
    private readonly tally: FileTally,
  ) {
    const { columns, isTime } = LAYOUTS[reportType];
    this.#columns = columns;
    this.#isTime = isTime;
    this.#names = columns.map((_, index) => columnName(index));
    this.lastColumn = this.#names[this.#names.length - 1]!;
    this.#cols = `<cols>${columnWidths(reportType)
      .map((width, at) => `<col min="${at + 1}" max="${at + 1}" width="${width}" customWidth="1"/>`)
      .join('')}</cols>`;
    const header = columns.map((column, at) => this.#textCell(`${this.#names[at]}1`, column, STYLE_HEADER));
    this.#headerRow = `<row r="1">${header.join('')}</row>`;
  }

  /** Data row `r` (the header is row 1). */
  row(values: Record<string, unknown>, r: number): string {
    let row = `<row r="${r}">`;
    for (let at = 0; at < this.#columns.length; at++)
      row += this.#cell(`${this.#names[at]}${r}`, values[this.#columns[at]!], this.#isTime[at]!);
    return `${row}</row>`;
  }

  /** Everything before a sheet's data rows; `rows` counts the header. */
  head(index: number, rows: number): string {
    return (
      `${XML_DECLARATION}<worksheet xmlns="${NS_MAIN}" xmlns:r="${NS_REL}">` +
      `<dimension ref="A1:${this.lastColumn}${rows}"/>` +
      `<sheetViews><sheetView workbookViewId="0"${index === 1 ? ' tabSelected="1"' : ''}>` +
      '<pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/>' +
      '<selection pane="bottomLeft" activeCell="A2" sqref="A2"/></sheetView></sheetViews>' +
      `<sheetFormatPr defaultRowHeight="15"/>${this.#cols}<sheetData>${this.#headerRow}`
    );
  }

  /** Everything after a sheet's data rows. */
  end(rows: number): string {
    return `</sheetData><autoFilter ref="A1:${this.lastColumn}${rows}"/></worksheet>`;
  }

  /** A text cell: cut (and counted) past Excel's limit; an inline string, so never a formula. */
  #textCell(ref: string, text: string, style = 0): string {
    const truncated = truncatedCellText(text);
    if (truncated !== undefined) this.tally.truncatedCells += 1;
    const value = truncated ?? text;
    const space = /^\s|\s$/.test(value) ? ' xml:space="preserve"' : '';
    const s = style ? ` s="${style}"` : '';
    return `<c r="${ref}"${s} t="inlineStr"><is><t${space}>${xmlCellText(value)}</t></is></c>`;
  }

  /**
   * One cell, typed by the record's value (CONTRACT §23): a number as a number, a boolean as a boolean, a time as a
   * date-time serial (UTC) with the date-time format, anything else as the CSV's text without its formula guard: an
   * inline string is never a formula. Absent, null and empty cells are not written.
   */
  #cell(ref: string, value: unknown, isTime: boolean): string {
    if (value === undefined || value === null) return '';
    if (typeof value === 'number' && Number.isFinite(value)) return `<c r="${ref}"><v>${value}</v></c>`;
    if (typeof value === 'boolean') return `<c r="${ref}" t="b"><v>${value ? 1 : 0}</v></c>`;
    if (isTime && typeof value === 'string') {
      const ms = Date.parse(value);
      if (ms >= FIRST_EXACT_MS && ms <= LAST_MS)
        return `<c r="${ref}" s="${STYLE_TIME}"><v>${ms / DAY_MS + EPOCH_DAYS}</v></c>`;
    }
    const text = textOf(value, isTime);
    return text === '' ? '' : this.#textCell(ref, text);
  }
}

interface SheetLimits {
  reportType: ReportType;
  level: NonNullable<XlsxOptions['level']>;
  rowsPerSheet: number;
  maxSpoolBytes: number;
  spoolMemoryBytes: number | undefined;
}

/**
 * The worksheet parts, one at a time: rows are deflated as they come and held in the spool until the sheet ends,
 * then its head (with the dimension, now known), the spooled rows and its end are written (ZipStream.splice).
 */
class Sheets {
  /** The sheets written so far, with their rows (the header included). */
  readonly written: { name: string; rows: number }[] = [];
  readonly #spool: Spool;
  /** Room kept in a sheet's MAX_SHEET_BYTES for its head and end. */
  readonly #frame: number;
  #run: DeflateRun;
  #rows = 1;
  #sheetBytes: number;
  #pending = '';

  constructor(
    private readonly zip: ZipStream,
    private readonly markup: SheetMarkup,
    private readonly limits: SheetLimits,
  ) {
    this.#frame = Buffer.byteLength(markup.head(2, XLSX_MAX_ROWS)) + 1024;
    this.#spool = new Spool(limits.spoolMemoryBytes);
    this.#run = new DeflateRun(limits.level);
    this.#sheetBytes = this.#frame;
  }

  /** Whether the next row starts a further sheet: this one holds its rows, or nears zip's or the spool's bound. */
  full(): boolean {
    return (
      this.#rows === this.limits.rowsPerSheet ||
      this.#sheetBytes + this.#pending.length * 3 >= MAX_SHEET_BYTES ||
      this.#spool.size + this.#pending.length * 3 >= this.limits.maxSpoolBytes
    );
  }

  add(record: Record<string, unknown>): void {
    this.#rows += 1;
    this.#pending += this.markup.row(record, this.#rows);
    if (this.#pending.length >= PUSH_CHARS) this.#push();
  }

  /** Waits for the spool's file writes (after each batch). */
  settle(): Promise<void> {
    return this.#spool.settle();
  }

  /** Writes the sheet's part: its head (with the dimension, now known), the spooled rows, its end. */
  async *close(): AsyncGenerator<Uint8Array> {
    if (this.#pending) this.#push();
    const index = this.written.length + 1;
    this.written.push({ name: sheetName(this.limits.reportType, index), rows: this.#rows });
    this.zip.begin(`xl/worksheets/sheet${index}.xml`);
    this.zip.write(Buffer.from(this.markup.head(index, this.#rows), 'utf8'));
    yield* this.zip.take();
    yield* this.#spool.drain();
    this.zip.splice(this.#run);
    this.zip.write(Buffer.from(this.markup.end(this.#rows), 'utf8'), true);
    yield* this.zip.take();
    this.#run = new DeflateRun(this.limits.level);
    this.#rows = 1;
    this.#sheetBytes = this.#frame;
  }

  dispose(): Promise<void> {
    return this.#spool.close();
  }

  #push(): void {
    const bytes = Buffer.from(this.#pending, 'utf8');
    this.#pending = '';
    this.#sheetBytes += bytes.length;
    this.#spool.push(this.#run.deflate(bytes));
  }
}

/** The parts that name the sheets (written after them: a zip's order does not matter to its readers), and styles. */
function writeWorkbook(zip: ZipStream, sheets: { name: string; rows: number }[], lastColumn: string): void {
  const sheetList = sheets.map((_, at) => at + 1);
  const quoted = (name: string) => `'${name.replaceAll("'", "''")}'`;
  zip.file(
    'xl/workbook.xml',
    `${XML_DECLARATION}<workbook xmlns="${NS_MAIN}" xmlns:r="${NS_REL}"><bookViews><workbookView/></bookViews><sheets>` +
      sheets.map(({ name }, at) => `<sheet name="${name}" sheetId="${at + 1}" r:id="rId${at + 1}"/>`).join('') +
      '</sheets><definedNames>' +
      sheets
        .map(
          ({ name, rows: count }, at) =>
            `<definedName name="_xlnm._FilterDatabase" localSheetId="${at}" hidden="1">` +
            `${quoted(name)}!$A$1:$${lastColumn}$${count}</definedName>`,
        )
        .join('') +
      '</definedNames></workbook>',
  );
  zip.file(
    'xl/_rels/workbook.xml.rels',
    `${XML_DECLARATION}<Relationships xmlns="${NS_PKG_REL}">` +
      sheetList
        .map((n) => `<Relationship Id="rId${n}" Type="${NS_REL}/worksheet" Target="worksheets/sheet${n}.xml"/>`)
        .join('') +
      `<Relationship Id="rId${sheets.length + 1}" Type="${NS_REL}/styles" Target="styles.xml"/></Relationships>`,
  );
  zip.file('xl/styles.xml', STYLES);
  zip.file(
    '_rels/.rels',
    `${XML_DECLARATION}<Relationships xmlns="${NS_PKG_REL}">` +
      `<Relationship Id="rId1" Type="${NS_REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
  );
  zip.file(
    '[Content_Types].xml',
    `${XML_DECLARATION}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
      '<Default Extension="xml" ContentType="application/xml"/>' +
      '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
      sheetList
        .map(
          (n) =>
            `<Override PartName="/xl/worksheets/sheet${n}.xml" ` +
            'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>',
        )
        .join('') +
      '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>' +
      '</Types>',
  );
}

/** Three cell formats: the default, date-times (UTC, to the millisecond, as the CSV), and the bold header. */
const STYLES =
  `${XML_DECLARATION}<styleSheet xmlns="${NS_MAIN}">` +
  `<numFmts count="1"><numFmt numFmtId="164" formatCode="${TIME_FORMAT}"/></numFmts>` +
  '<fonts count="2"><font><sz val="11"/><name val="Calibri"/><family val="2"/></font>' +
  '<font><b/><sz val="11"/><name val="Calibri"/><family val="2"/></font></fonts>' +
  '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>' +
  '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
  '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
  '<cellXfs count="3"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>' +
  '<xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>' +
  '<xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/></cellXfs>' +
  '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>' +
  '</styleSheet>';
