import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deps } from '#shared/config/deps';
import { createOrg } from '#shared/domain/orgs/administer';
import { killCliProcesses, wpcrm } from '#test/support/cli';
import { useLocalStack } from '#test/support/local-stack';

async function countRecords(orgId: string, type: 'CHAT' | 'CONTACT' | 'TICKET') {
  let count = 0;
  for await (const page of deps().crm.pages(orgId, type, {}, 500)) count += page.length;
  return count;
}

describe('wpcrm data', () => {
  const api = useLocalStack();
  let work: string;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'wpcrm-data-'));
  });

  afterAll(async () => {
    killCliProcesses();
    await rm(work, { recursive: true, force: true });
  });

  it('imports a valid file, upserting by id, and prints the counts per type', async () => {
    const { orgId } = await createOrg(deps(), { name: 'Importer' });
    const file = join(work, 'good.jsonl');
    const contact = {
      recordType: 'CONTACT',
      contactId: 'c1',
      name: 'Ada',
      channelIds: [],
      customFields: {},
      createdAt: '2026-03-01T10:00:00+02:00',
    };
    const ticket = {
      recordType: 'TICKET',
      ticketId: 't1',
      number: 7,
      isResolved: false,
      priority: 'HIGH',
      assignedUserIds: [],
      issueNames: [],
      createdAt: '2026-03-02T10:00:00Z',
    };
    await writeFile(
      file,
      [contact, ticket, { ...contact, name: 'Ada Lovelace' }].map((record) => JSON.stringify(record)).join('\n'),
    );

    const result = await wpcrm(['data', 'import', '--org', orgId, '--file', file], api.stack.dataDir);

    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ imported: 3, byType: { CONTACT: 2, TICKET: 1 } });
    const [contacts] = await deps()
      .crm.getContacts(orgId, ['c1'])
      .then((found) => [found]);
    expect(contacts).toEqual([
      expect.objectContaining({ name: 'Ada Lovelace', createdAt: '2026-03-01T08:00:00.000Z' }),
    ]);
  });

  it('reports every bad line with its number and pointer, and writes nothing', async () => {
    const { orgId } = await createOrg(deps(), { name: 'Careful' });
    const file = join(work, 'bad.jsonl');
    const good = {
      recordType: 'TICKET',
      ticketId: 't1',
      number: 1,
      isResolved: false,
      priority: 'LOW',
      assignedUserIds: [],
      issueNames: [],
      createdAt: '2026-03-02T10:00:00Z',
    };
    await writeFile(
      file,
      [
        JSON.stringify(good),
        '{not json',
        JSON.stringify({ ...good, ticketId: 't2', priority: 'SOMEDAY' }),
        JSON.stringify({ ...good, ticketId: 't3', recordType: 'INVOICE' }),
      ].join('\n'),
    );

    const result = await wpcrm(['data', 'import', '--org', orgId, '--file', file], api.stack.dataDir);

    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    const errors = result.stderr
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { line: number; pointer: string });
    expect(errors.map((error) => error.line)).toEqual([2, 3, 4]);
    expect(errors[1]!.pointer).toBe('/priority');
    expect(await countRecords(orgId, 'TICKET')).toBe(0);
  });

  it('refuses a string holding an unpaired surrogate with its line and pointer, and writes nothing (CONTRACT §23)', async () => {
    const { orgId } = await createOrg(deps(), { name: 'Surrogates' });
    const file = join(work, 'surrogates.jsonl');
    const contact = {
      recordType: 'CONTACT',
      contactId: 'c1',
      name: 'Ada 😀',
      channelIds: [],
      customFields: {},
      createdAt: '2026-03-01T10:00:00Z',
    };
    // JSON.stringify writes a lone surrogate as its \\u escape: the only way one reaches a UTF-8 file.
    await writeFile(
      file,
      [
        JSON.stringify(contact),
        JSON.stringify({ ...contact, contactId: 'c2', name: 'Ada \uD83D' }),
        JSON.stringify({ ...contact, contactId: 'c3', customFields: { notes: ['fine', 'x\uDC00'] } }),
      ].join('\n'),
    );
    expect(await readFile(file, 'utf8')).toContain('"Ada \\ud83d"');

    const result = await wpcrm(['data', 'import', '--org', orgId, '--file', file], api.stack.dataDir);

    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    const errors = result.stderr
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { line: number; pointer: string; message: string });
    expect(errors).toEqual([
      { line: 2, pointer: '/name', message: expect.stringContaining('unpaired surrogate (U+D83D') },
      { line: 3, pointer: '/customFields/notes/1', message: expect.stringContaining('unpaired surrogate (U+DC00') },
    ]);
    expect(await deps().crm.getContacts(orgId, ['c1', 'c2', 'c3'])).toEqual([]);
  });

  it('generates the same data for the same seed, with every kind and linked records', async () => {
    const { orgId } = await createOrg(deps(), { name: 'Generated' });
    const [a, b] = [join(work, 'a.jsonl'), join(work, 'b.jsonl')];

    const first = await wpcrm(
      ['data', 'generate', '--org', orgId, '--scale', '30', '--seed', '7', '--out', a],
      api.stack.dataDir,
    );
    await wpcrm(['data', 'generate', '--org', orgId, '--scale', '30', '--seed', '7', '--out', b], api.stack.dataDir);
    const stored = await wpcrm(['data', 'generate', '--org', orgId, '--scale', '30', '--seed', '7'], api.stack.dataDir);
    const imported = await wpcrm(['data', 'import', '--org', orgId, '--file', a], api.stack.dataDir);

    expect(await readFile(a, 'utf8')).toBe(await readFile(b, 'utf8'));
    const { byType } = JSON.parse(first.stdout) as { byType: Record<string, number> };
    expect(Object.keys(byType).sort()).toEqual(
      [
        'BOOKING',
        'CALL_LOG',
        'CHAT',
        'CONTACT',
        'FLOW_RESPONSES',
        'FOLLOW_UPS',
        'GOAL',
        'SURVEY_RESPONSES',
        'TICKET',
      ].sort(),
    );
    expect(JSON.parse(stored.stdout).generated).toBe(JSON.parse(first.stdout).generated);
    expect(JSON.parse(imported.stdout).imported).toBe(JSON.parse(first.stdout).generated);
    expect(await countRecords(orgId, 'CHAT')).toBe(30);
  });

  it('refuses a bad scale and a missing file with exit 1', async () => {
    const { orgId } = await createOrg(deps(), { name: 'Strict' });

    const scale = await wpcrm(['data', 'generate', '--org', orgId, '--scale', 'lots'], api.stack.dataDir);
    const missing = await wpcrm(
      ['data', 'import', '--org', orgId, '--file', join(work, 'nope.jsonl')],
      api.stack.dataDir,
    );

    expect(scale.status).toBe(1);
    expect(JSON.parse(scale.stderr).error.code).toBe('VALIDATION_FAILED');
    expect(missing.status).toBe(1);
  });
});
