import { gunzipSync } from 'node:zlib';
import { unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { csvHeader, csvRow } from '#shared/domain/reports/csv';
import { encodeReport } from '#shared/domain/reports/encode';
import { reportFileExtension, reportMediaType } from '#shared/domain/reports/formats';
import { jsonlLine } from '#shared/domain/reports/jsonl';
import { RECORD_KINDS, type RecordOf, type ReportType } from '#shared/domain/reports/records';
import { reportContentType, reportObjectKey } from '#shared/domain/reports/report';
import {
  columnWidths,
  type FileTally,
  XLSX_MAX_CELL_CHARS,
  XLSX_MAX_ROWS,
  XLSX_TRUNCATION_MARK,
  xmlCellText,
} from '#shared/domain/reports/xlsx';
import { csvTextOf, parseCsv, readXlsx, readXlsxSheetParts } from '#test/support/report-files';
import { build } from './builders.ts';

async function bytesOf(stream: AsyncIterable<string | Uint8Array>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

async function* inBatches<T>(records: T[], size = 2): AsyncGenerator<T[]> {
  for (let at = 0; at < records.length; at += size) yield records.slice(at, at + size);
}

const chats = (count: number) =>
  Array.from({ length: count }, (_, n) =>
    build('CHAT', { chatId: `chat-${n + 1}`, updatedAt: new Date(Date.UTC(2026, 10, 30) - n * 1000).toISOString() }),
  );

describe('encodeReport', () => {
  it('writes the CSV of §6 byte for byte, whatever the batches', async () => {
    const records = chats(5);

    const file = await bytesOf(encodeReport('CHAT', 'csv', 'none', inBatches(records, 3)));

    expect(file.toString('utf8')).toBe(csvHeader('CHAT') + records.map((chat) => csvRow('CHAT', chat)).join(''));
  });

  it.each(['csv', 'jsonl', 'xlsx'] as const)(
    'gzips the %s file to the same bytes once decompressed',
    async (format) => {
      const records = chats(3);

      const plain = await bytesOf(encodeReport('CHAT', format, 'none', inBatches(records)));
      const zipped = await bytesOf(encodeReport('CHAT', format, 'gzip', inBatches(records)));

      expect(zipped.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
      if (format === 'xlsx') expect(unzipSync(gunzipSync(zipped))).toEqual(unzipSync(plain));
      else expect(gunzipSync(zipped)).toEqual(plain);
    },
  );

  it('passes a failure of the row source through gzip', async () => {
    async function* failing(): AsyncGenerator<RecordOf<'CHAT'>[]> {
      yield chats(1);
      throw new Error('store unavailable');
    }

    await expect(bytesOf(encodeReport('CHAT', 'jsonl', 'gzip', failing()))).rejects.toThrow('store unavailable');
  });

  it('writes an empty JSONL file for no rows', async () => {
    expect(await bytesOf(encodeReport('GOAL', 'jsonl', 'none', inBatches([])))).toHaveLength(0);
  });
});

describe('jsonlLine', () => {
  it('writes every §9 field in column order with its JSON type, null when absent, then LF', () => {
    const ticket = {
      ...build('TICKET', { ticketId: 't1', number: 42, isResolved: true, remarks: 'Ünïcode "q"\n', issueNames: ['a'] }),
      orgId: 'outside §9',
      createdAt: '2026-11-30T10:00:00+02:00',
    };

    const line = jsonlLine('TICKET', ticket);

    expect(line.endsWith('}\n')).toBe(true);
    expect(line.slice(0, -1)).not.toContain('\n');
    const parsed = JSON.parse(line);
    expect(Object.keys(parsed)).toEqual(RECORD_KINDS.TICKET.columns);
    expect(parsed).toEqual({
      ticketId: 't1',
      number: 42,
      isResolved: true,
      priority: 'LOW',
      assignedUserIds: [],
      createdByUserId: null,
      ticketMachineId: null,
      chatId: null,
      remarks: 'Ünïcode "q"\n',
      issueNames: ['a'],
      createdAt: '2026-11-30T08:00:00.000Z',
    });
  });

  it('writes objects with their keys sorted', () => {
    const goal = build('GOAL', { trackerValues: { b: 1, a: { d: 2, c: [true] } } });

    expect(jsonlLine('GOAL', goal)).toContain('"trackerValues":{"a":{"c":[true],"d":2},"b":1}');
  });

  it('writes U+2028, U+2029 and U+0085 as \\u escapes, in text, arrays and object keys and values, so no line reader splits a record', async () => {
    const breaking = 'a\u2028b\u2029c\u0085d';
    const records = Array.from({ length: 50 }, (_, n) =>
      build('CONTACT', {
        contactId: `c${n}`,
        name: breaking,
        channelIds: [breaking],
        customFields: { [breaking]: breaking },
      }),
    );

    const file = (await bytesOf(encodeReport('CONTACT', 'jsonl', 'none', inBatches(records, 7)))).toString('utf8');

    expect(file).not.toMatch(/[\u0085\u2028\u2029]/);
    expect(file).toContain('"name":"a\\u2028b\\u2029c\\u0085d"');
    // Python's str.splitlines() breaks at these (and at \v, \f, \x1c–\x1e); every line must be a whole record.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the line ends Python's splitlines() knows
    const lines = file.split(/\r\n|[\n\r\v\f\x1c-\x1e\u0085\u2028\u2029]/).filter((line) => line !== '');
    expect(lines).toHaveLength(50);
    expect(lines.map((line) => JSON.parse(line))).toEqual(
      records.map(() =>
        expect.objectContaining({ name: breaking, channelIds: [breaking], customFields: { [breaking]: breaking } }),
      ),
    );
  });
});

describe('xlsxFile', () => {
  async function xlsxOf<T extends ReportType>(type: T, records: RecordOf<T>[], rowsPerSheet?: number) {
    const bytes = await bytesOf(encodeReport(type, 'xlsx', 'none', inBatches(records), { xlsx: { rowsPerSheet } }));
    return { bytes, sheets: await readXlsx(bytes, RECORD_KINDS[type].columns.length) };
  }

  it('holds the CSV rows cell by cell, with typed cells, a frozen header and an auto-filter', async () => {
    const records = [
      build('CHAT', {
        chatId: 'chat-1',
        name: 'Müller, "Hans"',
        isArchived: true,
        assignedUserIds: ['u1', 'u2'],
        externalItems: ['+4915112345678'],
        updatedAt: '2026-11-30T10:00:00.5+02:00',
      }),
      build('CHAT', { chatId: 'chat-2', name: '   ' }),
    ];
    const csv = parseCsv(csvHeader('CHAT') + records.map((chat) => csvRow('CHAT', chat)).join(''));

    const { sheets } = await xlsxOf('CHAT', records);

    expect(sheets).toHaveLength(1);
    const [sheet] = sheets;
    expect(sheet!.name).toBe('CHAT');
    expect(sheet!.frozenRows).toBe(1);
    expect(sheet!.autoFilter).toBe('A1:U3');
    expect(sheet!.rows.map((row) => row.map(csvTextOf))).toEqual(csv);
    const first = sheet!.rows[1]!;
    expect(first[5]).toEqual({ type: 'boolean', value: true });
    expect(first[11]).toEqual({ type: 'string', value: 'u1;u2' });
    expect(first[18]).toEqual({ type: 'string', value: '+4915112345678' });
    expect(first[20]).toEqual({
      type: 'date',
      value: new Date('2026-11-30T08:00:00.500Z'),
      numFmt: 'yyyy-mm-dd hh:mm:ss.000',
    });
    expect(sheet!.rows[2]![4]).toEqual({ type: 'empty' });
    expect(sheet!.rows[2]![1]).toEqual({ type: 'string', value: '   ' });
  });

  it('writes numbers as numbers and objects as their JSON text', async () => {
    const { sheets } = await xlsxOf('CALL_LOG', [build('CALL_LOG', { talkDurationSeconds: 61 })]);
    const goal = await xlsxOf('GOAL', [build('GOAL', { trackerValues: { b: 1, a: 'x' } })]);

    expect(sheets[0]!.rows[1]![9]).toEqual({ type: 'number', value: 61 });
    expect(goal.sheets[0]!.rows[1]![4]).toEqual({ type: 'string', value: '{"a":"x","b":1}' });
  });

  it('keeps formula-looking text as text: a string cell, never a formula', async () => {
    const names = ['=1+1', '+SUM(A1:A2)', '-2+3', '@cmd', '=HYPERLINK("http://x","y")'];
    const records = names.map((name, n) => build('CHAT', { chatId: `chat-${n}`, name }));

    const { bytes, sheets } = await xlsxOf('CHAT', records);

    expect(sheets[0]!.rows.slice(1).map((row) => row[1])).toEqual(names.map((value) => ({ type: 'string', value })));
    const sheetXml = new TextDecoder().decode(unzipSync(bytes)['xl/worksheets/sheet1.xml']);
    expect(sheetXml).not.toContain('<f>');
  });

  it("keeps the characters XML cannot hold as Excel's _xHHHH_, and CR, LF, tab, markup and astral characters as they are", async () => {
    const name = 'a\u0000b\u0001\u0008c\u000B\u001F\uFFFE\uFFFFd\te\r\nf <g> & "h" 😀';

    const { bytes, sheets } = await xlsxOf('CHAT', [build('CHAT', { name })]);

    expect(sheets[0]!.rows[1]![1]).toEqual({ type: 'string', value: name });
    const sheetXml = new TextDecoder().decode(unzipSync(bytes)['xl/worksheets/sheet1.xml']);
    expect(sheetXml).toContain(
      '<t>a_x0000_b_x0001__x0008_c_x000B__x001F__xFFFE__xFFFF_d\te&#13;\nf &lt;g&gt; &amp; "h" 😀</t>',
    );
  });

  it("escapes text that looks like Excel's _xHHHH_ escape, so that it reads as written", async () => {
    const name = 'a_x000D_b_x005F_c_xffff_ _x12_ _x0041';

    const { sheets } = await xlsxOf('CHAT', [build('CHAT', { name })]);

    expect(xmlCellText('a_x000D_b')).toBe('a_x005F_x000D_b');
    expect(xmlCellText('\u0001_x0001_')).toBe('_x0001__x005F_x0001_');
    expect(sheets[0]!.rows[1]![1]).toEqual({ type: 'string', value: name });
  });

  it('writes an unpaired surrogate (a record imported before the import refused them) as U+FFFD, as the CSV does', async () => {
    const name = 'a\uD800b\uDC00c😀';

    const { sheets } = await xlsxOf('CHAT', [build('CHAT', { name })]);
    const csv = Buffer.from(csvRow('CHAT', build('CHAT', { name })), 'utf8').toString('utf8');

    expect(sheets[0]!.rows[1]![1]).toEqual({ type: 'string', value: 'a\uFFFDb\uFFFDc😀' });
    expect(csv).toContain('a\uFFFDb\uFFFDc😀');
  });

  it('cuts a text over 32,767 characters with a visible mark inside the limit, counts it, and cuts nothing else', async () => {
    const long = 'x'.repeat(XLSX_MAX_CELL_CHARS - 1);
    const keep = XLSX_MAX_CELL_CHARS - XLSX_TRUNCATION_MARK.length;
    const records = [
      // Over the limit once joined: two names of the list.
      build('TICKET', { ticketId: 't-cut', issueNames: [long, 'tail'] }),
      // Exactly at the limit: kept whole.
      build('TICKET', { ticketId: 't-whole', issueNames: [long.slice(2), 'ab'] }),
      // A surrogate pair across the cut: neither half is left alone.
      build('TICKET', { ticketId: 't-pair', issueNames: [`${'y'.repeat(keep - 1)}😀${'z'.repeat(40)}`] }),
    ];
    const tally: FileTally = { truncatedCells: 0 };

    const bytes = await bytesOf(encodeReport('TICKET', 'xlsx', 'none', inBatches(records), { tally }));
    const [sheet] = await readXlsx(bytes, RECORD_KINDS.TICKET.columns.length);

    const issueNames = RECORD_KINDS.TICKET.columns.indexOf('issueNames');
    const [cut, whole, pair] = sheet!.rows.slice(1).map((row) => (row[issueNames] as { value: string }).value);
    expect(cut).toHaveLength(XLSX_MAX_CELL_CHARS);
    expect(cut).toBe(`${long.slice(0, keep)}…[truncated]`);
    expect(whole).toBe(`${long.slice(2)};ab`);
    expect(whole).toHaveLength(XLSX_MAX_CELL_CHARS);
    expect(pair).toBe(`${'y'.repeat(keep - 1)}…[truncated]`);
    expect(tally).toEqual({ truncatedCells: 2 });
  });

  it.each(['csv', 'jsonl'] as const)(
    'cuts nothing in %s: the long text is whole and the tally stays 0',
    async (format) => {
      const long = 'x'.repeat(XLSX_MAX_CELL_CHARS * 2);
      const tally: FileTally = { truncatedCells: 0 };

      const file = await bytesOf(
        encodeReport('TICKET', format, 'none', inBatches([build('TICKET', { issueNames: [long] })]), { tally }),
      );

      expect(file.toString('utf8')).toContain(long);
      expect(tally).toEqual({ truncatedCells: 0 });
    },
  );

  it('sizes every column for its type and its header: a time fits its format, long text is capped', async () => {
    const { bytes, sheets } = await xlsxOf('CHAT', chats(2));
    const [part] = readXlsxSheetParts(bytes);
    const widths = columnWidths('CHAT');
    const width = (type: ReportType, column: string) =>
      columnWidths(type)[(RECORD_KINDS[type].columns as readonly string[]).indexOf(column)]!;

    // The third-party reader and the part agree: one <col> per column, each with a custom width.
    expect(sheets[0]!.widths).toEqual(widths);
    expect(part!.cols).toEqual(widths.map((w, at) => ({ min: at + 1, max: at + 1, width: w, customWidth: true })));
    // A time's format (yyyy-mm-dd hh:mm:ss.000) is 23 characters: a tenth more and the padding.
    expect(width('CHAT', 'updatedAt')).toBe(28);
    expect(width('CHAT', 'createdAt')).toBe(28);
    // A boolean's FALSE fits; its header is wider (bold, with the filter button).
    expect(width('CHAT', 'isHighPriority')).toBe(Math.ceil('isHighPriority'.length * 1.2) + 3);
    // An enum fits its longest value; a number the 11 characters of Excel's General format.
    expect(width('CHAT', 'botJourneyStatus')).toBeGreaterThanOrEqual('AGENT_TRANSFERRED'.length + 2);
    expect(width('CALL_LOG', 'talkDurationSeconds')).toBeGreaterThanOrEqual(11 + 2);
    // Text by its bound, capped.
    expect(width('TICKET', 'remarks')).toBeGreaterThan(width('TICKET', 'ticketId'));
    for (const type of Object.keys(RECORD_KINDS) as ReportType[]) {
      for (const [at, column] of RECORD_KINDS[type].columns.entries()) {
        expect(columnWidths(type)[at], column).toBeGreaterThanOrEqual(column.length + 3);
        expect(columnWidths(type)[at], column).toBeLessThanOrEqual(60);
      }
    }
  });

  it("declares each sheet's used range in <dimension>, before its views and columns, in ECMA-376's order", async () => {
    const { bytes } = await xlsxOf('CHAT', chats(7), 4);
    const empty = await xlsxOf('BOOKING', []);

    const parts = readXlsxSheetParts(bytes);

    expect(parts.map((part) => part.dimension)).toEqual(['A1:U4', 'A1:U4', 'A1:U2']);
    for (const part of parts) {
      expect(part.dimension).toBe(`A1:${part.lastColumn}${part.lastRow}`);
      expect(part.elements).toEqual(['dimension', 'sheetViews', 'sheetFormatPr', 'cols', 'sheetData', 'autoFilter']);
    }
    expect(readXlsxSheetParts(empty.bytes).map((part) => part.dimension)).toEqual(['A1:G1']);
  });

  it('starts a further sheet once a sheet holds back its most deflated rows (the disk it may use)', async () => {
    const records = chats(3);
    const csv = parseCsv(csvHeader('CHAT') + records.map((chat) => csvRow('CHAT', chat)).join(''));

    const bytes = await bytesOf(
      encodeReport('CHAT', 'xlsx', 'none', inBatches(records), { xlsx: { maxSpoolBytes: 1 } }),
    );
    const sheets = await readXlsx(bytes, RECORD_KINDS.CHAT.columns.length);

    expect(sheets.map((sheet) => sheet.name)).toEqual(['CHAT', 'CHAT 2', 'CHAT 3']);
    expect(sheets.flatMap((sheet) => sheet.rows.slice(1)).map((row) => row.map(csvTextOf))).toEqual(csv.slice(1));
    expect(readXlsxSheetParts(bytes).map((part) => part.dimension)).toEqual(['A1:U2', 'A1:U2', 'A1:U2']);
  });

  it('writes the same file whether a sheet waited for its dimension in memory or in a temporary file', async () => {
    const records = chats(2_500);
    const encode = (spoolMemoryBytes?: number) =>
      bytesOf(
        encodeReport('CHAT', 'xlsx', 'none', inBatches(records, 500), {
          xlsx: { rowsPerSheet: 2_000, spoolMemoryBytes },
        }),
      );

    const inMemory = await encode();
    const onDisk = await encode(1);

    expect(onDisk).toEqual(inMemory);
    const sheets = await readXlsx(onDisk, RECORD_KINDS.CHAT.columns.length);
    expect(sheets.map((sheet) => sheet.rows.length)).toEqual([2_000, 502]);
    expect(readXlsxSheetParts(onDisk).map((part) => part.dimension)).toEqual(['A1:U2000', 'A1:U502']);
  });

  it('is a header-only sheet for an empty result', async () => {
    const { sheets } = await xlsxOf('BOOKING', []);

    expect(sheets).toHaveLength(1);
    expect(sheets[0]!.rows.map((row) => row.map(csvTextOf))).toEqual(parseCsv(csvHeader('BOOKING')));
    expect(sheets[0]!.autoFilter).toBe('A1:G1');
  });

  it('continues past the row limit on a further sheet with its own header', async () => {
    const records = chats(7);
    const csv = parseCsv(csvHeader('CHAT') + records.map((chat) => csvRow('CHAT', chat)).join(''));

    const { bytes, sheets } = await xlsxOf('CHAT', records, 4);

    expect(sheets.map((sheet) => sheet.name)).toEqual(['CHAT', 'CHAT 2', 'CHAT 3']);
    expect(sheets.map((sheet) => sheet.rows.length)).toEqual([4, 4, 2]);
    expect(sheets.map((sheet) => sheet.autoFilter)).toEqual(['A1:U4', 'A1:U4', 'A1:U2']);
    for (const sheet of sheets) expect(sheet.frozenRows).toBe(1);
    for (const sheet of sheets) expect(sheet.rows[0]!.map(csvTextOf)).toEqual(csv[0]);
    expect(sheets.flatMap((sheet) => sheet.rows.slice(1)).map((row) => row.map(csvTextOf))).toEqual(csv.slice(1));
    const parts = unzipSync(bytes);
    expect(Object.keys(parts).sort()).toEqual([
      '[Content_Types].xml',
      '_rels/.rels',
      'xl/_rels/workbook.xml.rels',
      'xl/styles.xml',
      'xl/workbook.xml',
      'xl/worksheets/sheet1.xml',
      'xl/worksheets/sheet2.xml',
      'xl/worksheets/sheet3.xml',
    ]);
  });

  it('deflates a sheet of many chunks into one stream that a reader takes whole', async () => {
    const records = chats(3_000);

    const { bytes, sheets } = await xlsxOf('CHAT', records);

    expect(unzipSync(bytes)['xl/worksheets/sheet1.xml']!.length).toBeGreaterThan(4 * 256 * 1024);
    expect(sheets[0]!.rows).toHaveLength(3_001);
    expect(sheets[0]!.rows[3_000]!.map(csvTextOf)).toEqual(parseCsv(csvRow('CHAT', records[2_999]!))[0]);
  });

  it('fills a sheet exactly to the limit before opening the next', async () => {
    const { sheets } = await xlsxOf('CHAT', chats(3), 4);

    expect(sheets.map((sheet) => sheet.rows.length)).toEqual([4]);
    expect(XLSX_MAX_ROWS).toBe(1_048_576);
  });
});

describe('report file names and media types (CONTRACT §23)', () => {
  it.each([
    ['csv', 'none', 'text/csv', 'csv', 'text/csv; charset=utf-8'],
    ['jsonl', 'none', 'application/x-ndjson', 'jsonl', 'application/x-ndjson; charset=utf-8'],
    [
      'xlsx',
      'none',
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      'xlsx',
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    ],
    ['csv', 'gzip', 'application/gzip', 'csv.gz', 'application/gzip'],
    ['xlsx', 'gzip', 'application/gzip', 'xlsx.gz', 'application/gzip'],
  ] as const)('%s with %s compression is %s, .%s', (format, compression, mediaType, extension, contentType) => {
    expect(reportMediaType(format, compression)).toBe(mediaType);
    expect(reportFileExtension(format, compression)).toBe(extension);
    expect(reportObjectKey('o1', 'rpt_1', format, compression)).toBe(`org/o1/reports/rpt_1.${extension}`);
    expect(reportContentType(format, compression)).toBe(contentType);
  });

  it('keys a report stored before formats existed as a CSV', () => {
    expect(reportObjectKey('o1', 'rpt_1')).toBe('org/o1/reports/rpt_1.csv');
  });
});
