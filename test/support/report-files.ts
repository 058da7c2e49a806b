import { gunzipSync } from 'node:zlib';
import ExcelJS from 'exceljs';
import { unzipSync } from 'fflate';

/** A strict RFC 4180 reader: CRLF after every row, quotes only around whole fields, `""` inside them. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let i = 0;
  while (i < text.length) {
    let field = '';
    if (text[i] === '"') {
      i += 1;
      for (;;) {
        const quote = text.indexOf('"', i);
        if (quote < 0) throw new Error('unterminated quoted field');
        field += text.slice(i, quote);
        i = quote + 1;
        if (text[i] !== '"') break;
        field += '"';
        i += 1;
      }
    } else {
      while (i < text.length && !',\r\n'.includes(text[i]!)) {
        if (text[i] === '"') throw new Error(`quote inside an unquoted field at ${i}`);
        field += text[i++];
      }
    }
    row.push(field);
    if (text[i] === ',') i += 1;
    else if (text.startsWith('\r\n', i)) {
      rows.push(row);
      row = [];
      i += 2;
    } else throw new Error(`expected a comma or CRLF at ${i}`);
  }
  if (row.length > 0) throw new Error('the last row has no CRLF');
  return rows;
}

/** The CSV's spreadsheet formula guard (CONTRACT §6), applied to an XLSX text cell to compare it with the CSV. */
export const csvGuarded = (text: string) =>
  /^[=+\-@\t\r]/.test(text) && !/^[+-]?[0-9]+(\.[0-9]+)?$/.test(text) ? `'${text}` : text;

export type XlsxCell =
  | { type: 'empty' }
  | { type: 'string'; value: string }
  | { type: 'number'; value: number }
  | { type: 'boolean'; value: boolean }
  | { type: 'date'; value: Date; numFmt: string | undefined };

export interface XlsxSheet {
  name: string;
  frozenRows: number | undefined;
  autoFilter: unknown;
  /** Each column's width as the reader found it (`<col width>`), undefined when none is set. */
  widths: (number | undefined)[];
  rows: XlsxCell[][];
}

/**
 * A text of the file (ECMA-376's ST_Xstring) as a spreadsheet shows it: `_xHHHH_` is the UTF-16 code unit HHHH (so
 * `_x005F_` is `_` and `_x005F_x0001_` reads `_x0001_`). exceljs decodes these in shared strings only; the report's
 * cells are inline strings, so they are decoded here.
 */
export const decodeXstring = (text: string) =>
  text.replace(/_x([0-9A-Fa-f]{4})_/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));

/** Reads an XLSX file with a third-party reader (exceljs); any formula cell fails the read. */
export async function readXlsx(bytes: Uint8Array, columns: number): Promise<XlsxSheet[]> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(Buffer.from(bytes) as unknown as ExcelJS.Buffer);
  return workbook.worksheets.map((sheet) => {
    const rows: XlsxCell[][] = [];
    for (let r = 1; r <= sheet.rowCount; r++) {
      const row = sheet.getRow(r);
      const cells: XlsxCell[] = [];
      for (let c = 1; c <= columns; c++) {
        const cell = row.getCell(c);
        if (cell.formula || cell.type === ExcelJS.ValueType.Formula) throw new Error(`${cell.address} is a formula`);
        const value = cell.value;
        if (cell.type === ExcelJS.ValueType.Null) cells.push({ type: 'empty' });
        else if (cell.type === ExcelJS.ValueType.String)
          cells.push({ type: 'string', value: decodeXstring(value as string) });
        else if (cell.type === ExcelJS.ValueType.Number) cells.push({ type: 'number', value: value as number });
        else if (cell.type === ExcelJS.ValueType.Boolean) cells.push({ type: 'boolean', value: value as boolean });
        else if (cell.type === ExcelJS.ValueType.Date)
          cells.push({ type: 'date', value: value as Date, numFmt: cell.numFmt });
        else throw new Error(`${cell.address} has cell type ${cell.type}`);
      }
      rows.push(cells);
    }
    const view = sheet.views[0] as { state?: string; ySplit?: number } | undefined;
    return {
      name: sheet.name,
      frozenRows: view?.state === 'frozen' ? view.ySplit : undefined,
      autoFilter: sheet.autoFilter,
      widths: Array.from({ length: columns }, (_, at) => sheet.getColumn(at + 1).width),
      rows,
    };
  });
}

export interface XlsxSheetPart {
  /** `<dimension ref>`: the used range the sheet declares. */
  dimension: string | undefined;
  /** `<cols>`: each `<col>`'s attributes. */
  cols: { min: number; max: number; width: number; customWidth: boolean }[];
  /** The order of the worksheet's child elements (ECMA-376 fixes it). */
  elements: string[];
  /** Rows and their cells as written (`r` attributes), to find the used range independently of the dimension. */
  lastRow: number;
  lastColumn: string;
}

/**
 * Reads what exceljs does not keep from each sheet's part, in sheet order: its `<dimension>`, its `<cols>`, the order
 * of its elements and the range its cells really use.
 */
export function readXlsxSheetParts(bytes: Uint8Array): XlsxSheetPart[] {
  const parts = unzipSync(bytes);
  const names = Object.keys(parts)
    .filter((name) => /^xl\/worksheets\/sheet\d+\.xml$/.test(name))
    .sort((a, b) => Number(a.match(/\d+/)![0]) - Number(b.match(/\d+/)![0]));
  return names.map((name) => {
    const xml = new TextDecoder().decode(parts[name]);
    const attributes = (tag: string) =>
      Object.fromEntries([...tag.matchAll(/(\w+)="([^"]*)"/g)].map(([, key, value]) => [key!, value!]));
    // The worksheet's children, in order: nested elements (rows, a view's pane) are skipped by depth.
    const elements: string[] = [];
    let depth = -1;
    for (const [, closing, element, selfClosing] of xml.matchAll(/<(\/?)([\w:]+)[^>]*?(\/?)>/g)) {
      if (closing) depth -= 1;
      else {
        if (depth === 0) elements.push(element!);
        if (!selfClosing) depth += 1;
      }
    }
    const refs = [...xml.matchAll(/<c r="([A-Z]+)(\d+)"/g)];
    const columnNumber = (letters: string) =>
      [...letters].reduce((sum, letter) => sum * 26 + letter.charCodeAt(0) - 64, 0);
    const lastColumn = refs.reduce(
      (last, [, letters]) => (columnNumber(letters!) > columnNumber(last) ? letters! : last),
      'A',
    );
    return {
      dimension: attributes(xml.match(/<dimension [^>]*>/)?.[0] ?? '').ref,
      cols: [...xml.matchAll(/<col [^>]*>/g)].map(([tag]) => {
        const col = attributes(tag);
        return {
          min: Number(col.min),
          max: Number(col.max),
          width: Number(col.width),
          customWidth: col.customWidth === '1' || col.customWidth === 'true',
        };
      }),
      elements,
      lastRow: Math.max(0, ...[...xml.matchAll(/<row r="(\d+)"/g)].map(([, row]) => Number(row))),
      lastColumn,
    };
  });
}

/** A cell as the CSV writes the same value: the text cells with the formula guard. */
export function csvTextOf(cell: XlsxCell): string {
  switch (cell.type) {
    case 'empty':
      return '';
    case 'string':
      return csvGuarded(cell.value);
    case 'number':
      return JSON.stringify(cell.value);
    case 'boolean':
      return String(cell.value);
    case 'date':
      return cell.value.toISOString();
  }
}

/** The cell type a JSONL value of a column must have in the XLSX. */
export function expectedCellType(value: unknown, isTime: boolean): XlsxCell['type'] {
  if (value === null || (Array.isArray(value) && value.length === 0)) return 'empty';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'boolean';
  if (isTime && typeof value === 'string') return 'date';
  return typeof value === 'string' && value === '' ? 'empty' : 'string';
}

/** The file's bytes, gunzipped when it is a gzip file (magic 1f 8b). */
export function decompressed(bytes: Uint8Array): Uint8Array {
  return bytes[0] === 0x1f && bytes[1] === 0x8b ? new Uint8Array(gunzipSync(bytes)) : bytes;
}
