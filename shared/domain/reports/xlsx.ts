import { LAYOUTS, textOf } from './csv.ts';
import type { RecordOf, ReportType } from './records.ts';
import { ZipStream } from './zip.ts';

/**
 * A streamed XLSX (SpreadsheetML) writer over our streamed zip (zip.ts; CONTRACT §23): the same columns and rows as the
 * CSV, typed cells, a frozen header with an auto-filter, and a further sheet (with its own header) past Excel's row
 * limit. Rows go into the sheet's deflate stream as they come, so memory stays flat whatever the row count; the
 * workbook parts that name the sheets are written after them (a zip's order does not matter to its readers).
 *
 * Why not exceljs's streaming WorkbookWriter: bundled into the report worker it weighs more than the whole worker's
 * budget (docs/reports.md, "Why our own XLSX writer", has the figures).
 */

/** Excel's rows per sheet, the header included. */
export const XLSX_MAX_ROWS = 1_048_576;
/** Excel's characters per cell: a longer text would make Excel repair the file, so it is cut there. */
const MAX_CELL_CHARS = 32_767;
/** A sheet's XML is cut before zip's 4 GiB entry limit (zip.ts writes no zip64). */
const MAX_SHEET_BYTES = 0xf000_0000;
/** XML text handed to the deflate stream at a time (each is deflated on its own: large enough to compress well). */
const PUSH_CHARS = 256 * 1024;
/** Days between Excel's epoch (1899-12-30, the 1900 system) and 1970-01-01. */
const EPOCH_DAYS = 25_569;
const DAY_MS = 86_400_000;
/** 1900-03-01: earlier serials are off by Excel's 1900 leap-year bug, so earlier times are written as text. */
const FIRST_EXACT_MS = Date.UTC(1900, 2, 1);
const LAST_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** cellXfs indices of styles.xml. */
const STYLE_TIME = 1;
const STYLE_HEADER = 2;

export interface XlsxOptions {
  /** Rows per sheet, the header included (tests inject a small one). @default XLSX_MAX_ROWS */
  rowsPerSheet?: number;
  /** Deflate level, 1 (fastest) to 9. @default 6 */
  level?: 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9;
}

const NS_MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const NS_REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const NS_PKG_REL = 'http://schemas.openxmlformats.org/package/2006/relationships';
const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';

/** Characters XML 1.0 cannot hold (C0 controls but tab, LF, CR; U+FFFE, U+FFFF; unpaired surrogates): removed. */
const XML_INVALID =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const XML_SPECIAL = /[&<>\r]|_x[0-9A-Fa-f]{4}_/g;
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '\r': '&#13;' };

/**
 * Text as a cell's XML text: invalid characters removed; `&`, `<`, `>` escaped; CR kept as a character reference
 * (XML would turn a raw one into LF); and text that looks like Excel's own `_xHHHH_` escape escaped itself, so
 * that Excel shows it as written.
 */
export function xmlCellText(text: string): string {
  return text.replace(XML_INVALID, '').replace(XML_SPECIAL, (match) => ESCAPES[match] ?? `_x005F${match}`);
}

function columnName(index: number): string {
  let name = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

function textCell(ref: string, text: string, style = 0): string {
  const cut = text.length > MAX_CELL_CHARS ? text.slice(0, MAX_CELL_CHARS) : text;
  const space = /^\s|\s$/.test(cut) ? ' xml:space="preserve"' : '';
  const s = style ? ` s="${style}"` : '';
  return `<c r="${ref}"${s} t="inlineStr"><is><t${space}>${xmlCellText(cut)}</t></is></c>`;
}

/**
 * One cell, typed by the record's value (CONTRACT §23): a number as a number, a boolean as a boolean, a time as a
 * date-time serial (UTC) with the date-time format, anything else as the CSV's text without its formula guard: an
 * inline string is never a formula. Absent, null and empty cells are not written.
 */
function cellXml(ref: string, value: unknown, isTime: boolean): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'number' && Number.isFinite(value)) return `<c r="${ref}"><v>${value}</v></c>`;
  if (typeof value === 'boolean') return `<c r="${ref}" t="b"><v>${value ? 1 : 0}</v></c>`;
  if (isTime && typeof value === 'string') {
    const ms = Date.parse(value);
    if (ms >= FIRST_EXACT_MS && ms <= LAST_MS)
      return `<c r="${ref}" s="${STYLE_TIME}"><v>${ms / DAY_MS + EPOCH_DAYS}</v></c>`;
  }
  const text = textOf(value, isTime);
  return text === '' ? '' : textCell(ref, text);
}

function sheetName(reportType: ReportType, index: number): string {
  return index === 1 ? reportType : `${reportType} ${index}`;
}

/**
 * The XLSX file of a report, as zip bytes: `batches` are the records in report order. Sheet `n` holds rows
 * `(n-1)·(rowsPerSheet-1)+1 …`, each sheet starting with the header row.
 */
export async function* xlsxFile<T extends ReportType>(
  reportType: T,
  batches: AsyncIterable<readonly RecordOf<T>[]>,
  options: XlsxOptions = {},
): AsyncGenerator<Uint8Array> {
  const rowsPerSheet = options.rowsPerSheet ?? XLSX_MAX_ROWS;
  if (rowsPerSheet < 2) throw new RangeError('a sheet holds the header and at least one row');
  const { columns, isTime } = LAYOUTS[reportType];
  const names = columns.map((_, index) => columnName(index));
  const lastColumn = names[names.length - 1]!;

  const zip = new ZipStream(options.level ?? 6);
  const file = (name: string, text: string) => zip.file(name, text);

  const sheets: { name: string; rows: number }[] = [];
  let rows = 0;
  let sheetBytes = 0;
  let pending = '';
  const push = (final = false) => {
    const bytes = Buffer.from(pending, 'utf8');
    pending = '';
    sheetBytes += bytes.length;
    zip.write(bytes, final);
  };
  const openSheet = () => {
    const index = sheets.length + 1;
    sheets.push({ name: sheetName(reportType, index), rows: 1 });
    zip.begin(`xl/worksheets/sheet${index}.xml`);
    rows = 1;
    sheetBytes = 0;
    pending =
      `${XML_DECLARATION}<worksheet xmlns="${NS_MAIN}" xmlns:r="${NS_REL}">` +
      `<sheetViews><sheetView workbookViewId="0"${index === 1 ? ' tabSelected="1"' : ''}>` +
      '<pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/>' +
      '<selection pane="bottomLeft" activeCell="A2" sqref="A2"/></sheetView></sheetViews>' +
      '<sheetFormatPr defaultRowHeight="15"/><sheetData>' +
      `<row r="1">${columns.map((column, at) => textCell(`${names[at]}1`, column, STYLE_HEADER)).join('')}</row>`;
  };
  const closeSheet = () => {
    pending += `</sheetData><autoFilter ref="A1:${lastColumn}${rows}"/></worksheet>`;
    sheets[sheets.length - 1]!.rows = rows;
    push(true);
  };

  openSheet();
  for await (const batch of batches) {
    for (const record of batch) {
      if (rows === rowsPerSheet || sheetBytes + pending.length * 3 >= MAX_SHEET_BYTES) {
        closeSheet();
        yield* zip.take();
        openSheet();
      }
      rows += 1;
      const values = record as Record<string, unknown>;
      let row = `<row r="${rows}">`;
      for (let at = 0; at < columns.length; at++)
        row += cellXml(`${names[at]}${rows}`, values[columns[at]!], isTime[at]!);
      pending += `${row}</row>`;
      if (pending.length >= PUSH_CHARS) push();
    }
    yield* zip.take();
  }
  closeSheet();

  const sheetList = sheets.map((_, at) => at + 1);
  const quoted = (name: string) => `'${name.replaceAll("'", "''")}'`;
  file(
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
  file(
    'xl/_rels/workbook.xml.rels',
    `${XML_DECLARATION}<Relationships xmlns="${NS_PKG_REL}">` +
      sheetList
        .map((n) => `<Relationship Id="rId${n}" Type="${NS_REL}/worksheet" Target="worksheets/sheet${n}.xml"/>`)
        .join('') +
      `<Relationship Id="rId${sheets.length + 1}" Type="${NS_REL}/styles" Target="styles.xml"/></Relationships>`,
  );
  file('xl/styles.xml', STYLES);
  file(
    '_rels/.rels',
    `${XML_DECLARATION}<Relationships xmlns="${NS_PKG_REL}">` +
      `<Relationship Id="rId1" Type="${NS_REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
  );
  file(
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
  zip.finish();
  yield* zip.take();
}

/** Three cell formats: the default, date-times (UTC, to the millisecond, as the CSV), and the bold header. */
const STYLES =
  `${XML_DECLARATION}<styleSheet xmlns="${NS_MAIN}">` +
  '<numFmts count="1"><numFmt numFmtId="164" formatCode="yyyy-mm-dd hh:mm:ss.000"/></numFmts>' +
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
