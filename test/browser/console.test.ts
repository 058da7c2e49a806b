import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, useLocalStack } from '#test/support/local-stack';
import { Receiver } from '#test/support/receiver';
import { findBrowser } from './browser.ts';

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run'];
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);
const SHOTS = join(import.meta.dirname, '..', '..', 'test-results', 'console');
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const MARKUP = '<img src=x onerror="window.__xss=1"><b>bold</b>';

interface AxeResult {
  violations: { id: string; impact: string | null; nodes: { target: string[] }[] }[];
}

describe('the console in a browser (CONTRACT §24)', () => {
  const api = useLocalStack();
  const receiver = new Receiver();
  let browser: Browser;
  let profile: string;
  const leftLoopback: string[] = [];
  const errors: string[] = [];

  beforeAll(async () => {
    await receiver.start();
    profile = mkdtempSync(join(tmpdir(), 'wpcrm-console-'));
    browser = await chromium.launch({ executablePath: (await findBrowser()).executablePath, args: CHROMIUM_ARGS });
    mkdirSync(SHOTS, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await receiver.stop();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  /** A fresh browser (its own cookies) on a page, with every request off loopback refused and recorded. */
  async function newPage(width = 1280): Promise<Page> {
    const context = await browser.newContext({ viewport: { width, height: 900 }, acceptDownloads: true });
    await context.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (LOOPBACK.has(url.hostname)) return route.continue();
      leftLoopback.push(url.href);
      return route.abort('blockedbyclient');
    });
    const page = await context.newPage();
    page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
    page.on('pageerror', (error) => errors.push(error.message));
    return page;
  }

  async function consoleLink(access: 'manage' | 'read' = 'manage'): Promise<string> {
    const response = await api.call(`/console-links/${api.orgId}`, {
      method: 'POST',
      token: await api.token('ACCOUNT_OWNER'),
      json: { access },
    });
    return ((await response.json()) as { url: string }).url;
  }

  async function signedIn(access: 'manage' | 'read' = 'manage', width = 1280): Promise<Page> {
    const page = await newPage(width);
    await page.goto(await consoleLink(access));
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    return page;
  }

  const nav = (page: Page, name: string) =>
    page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name, exact: true }).click();

  async function axe(page: Page, label: string): Promise<string[]> {
    // Evaluated through the debugging protocol (the page's CSP rightly refuses an injected script tag).
    await page.evaluate(AXE);
    const result = (await page.evaluate(
      "axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })",
    )) as AxeResult;
    return result.violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map(
        (violation) => `${label}: ${violation.id} ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
      );
  }

  it('signs in through a link, removes the code from the address bar, and refuses the link a second time', async () => {
    const url = await consoleLink();
    const page = await newPage();

    await page.goto(url);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();

    expect(page.url()).toBe(`${api.stack.apiUrl}/console`);
    const second = await newPage();
    await second.goto(url);
    await expect.poll(() => second.getByRole('status').first().innerText()).toContain('used');
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await page.context().close();
    await second.context().close();
  });

  it('creates a group whose status becomes created on screen, its subject and messages shown as text', async () => {
    const page = await signedIn();
    await nav(page, 'Groups');
    await page.getByRole('heading', { level: 1, name: 'Groups' }).waitFor();

    await page.getByRole('button', { name: 'Create group' }).click();
    const form = page.getByRole('form', { name: 'Create group' });
    await form.getByLabel('Subject').fill(MARKUP);
    await form.getByLabel('Description').fill('Made in the console');
    await form.getByRole('button', { name: 'Create group' }).click();

    await page.getByText('created', { exact: true }).first().waitFor({ timeout: 20_000 });
    await page.getByRole('link', { name: 'Open the group' }).click();
    await page.getByRole('heading', { level: 1, name: MARKUP }).waitFor();
    await page.getByLabel('Message').fill(`Hello ${MARKUP}`);
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText(`Hello ${MARKUP}`).waitFor();
    expect(await page.evaluate('window.__xss')).toBeUndefined();
    expect(await page.locator('main img, main b').count()).toBe(0);
    await page.screenshot({ path: join(SHOTS, 'group-1280.png'), fullPage: true });
    await page.context().close();
  });

  it('requests an XLSX report with a date filter and downloads it', async () => {
    const page = await signedIn();
    await nav(page, 'Reports');
    await page.getByRole('button', { name: 'Request report' }).click();
    const form = page.getByRole('form', { name: 'Request report' });
    await form.getByLabel('Report type').selectOption('CHAT');
    await form.getByLabel('Format').selectOption('xlsx');
    await form.getByLabel('Compression').selectOption('none');
    await form.getByLabel('Updated after').fill('2020-01-01T00:00');
    await page.screenshot({ path: join(SHOTS, 'request-report-1280.png'), fullPage: true });

    await form.getByRole('button', { name: 'Request report' }).click();
    const download = page.getByRole('button', { name: 'Download' }).first();
    await download.waitFor({ timeout: 30_000 });
    const [file] = await Promise.all([page.waitForEvent('download'), download.click()]);
    const path = join(profile, 'report.xlsx');
    await file.saveAs(path);

    expect(readFileSync(path).subarray(0, 2).toString()).toBe('PK');
    const reports = await api.call(`/reports/${api.orgId}?reportType=CHAT`, { token: await api.token('CRM_ADMIN') });
    const [report] = ((await reports.json()) as { reports: { filters: Record<string, unknown>; format: string }[] })
      .reports;
    expect(report!.format).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(report!.filters.updatedAfter).toBe(new Date('2020-01-01T00:00').toISOString());

    await page.getByRole('button', { name: 'Request report' }).click();
    await page.getByRole('form', { name: 'Request report' }).getByRole('button', { name: 'Request report' }).click();
    await expect
      .poll(() => page.getByRole('alert').first().innerText())
      .toMatch(/request the next one at .+ \(in \d+ min\)/);
    await page.context().close();
  });

  it('adds an endpoint, shows its secret once, sends a test event, and shows and replays the delivery', async () => {
    const page = await signedIn();
    await nav(page, 'Webhooks');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const form = page.getByRole('form', { name: 'Add endpoint' });
    await form.getByLabel('Endpoint URL').fill(`${receiver.url}/console-hook`);
    await form.getByLabel('group.created').check();
    await form.getByRole('button', { name: 'Add endpoint' }).click();

    const secret = await page.locator('[data-secret]').innerText();
    expect(secret).toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.getByText(secret).count()).toBe(0);
    await page.getByRole('link', { name: `${receiver.url}/console-hook` }).click();
    await page.getByRole('button', { name: 'Send test event' }).click();
    await eventually(
      () => {
        if (receiver.requestsTo('/console-hook').length === 0) throw new Error('no delivery yet');
      },
      { timeoutMs: 15_000 },
    );
    await page.getByRole('cell', { name: 'succeeded' }).waitFor({ timeout: 15_000 });
    await page.getByText('1 attempt').click();
    await page.getByText(/code 200/).waitFor();
    await page.getByRole('button', { name: 'Replay' }).click();
    await eventually(
      () => {
        if (receiver.requestsTo('/console-hook').length < 2) throw new Error('not replayed yet');
      },
      { timeoutMs: 15_000 },
    );
    await page.getByText('2 attempts').waitFor({ timeout: 15_000 });
    await page.screenshot({ path: join(SHOTS, 'endpoint-1280.png'), fullPage: true });
    await page.context().close();
  });

  it('shows a read session every page without a control that changes something', async () => {
    const page = await signedIn('read');
    const changing = ['Create group', 'Request report', 'Create schedule', 'Add endpoint', 'Send test event', 'Replay'];

    for (const name of ['Groups', 'Reports', 'Webhooks', 'Events', 'Overview']) {
      await nav(page, name);
      await page.getByRole('heading', { level: 1, name }).waitFor();
      for (const button of changing) expect(await page.getByRole('button', { name: button }).count(), button).toBe(0);
    }
    await page.context().close();
  });

  it('ends the session on Sign out, also after a reload', async () => {
    const page = await signedIn();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You are signed out.').waitFor();
    await page.reload();

    await page.getByText('You are signed out.').waitFor();
    await page.context().close();
  });

  for (const width of [1280, 360]) {
    it(`keeps the place on reload and back/forward at ${width} px, and axe finds no serious violation`, async () => {
      const violations: string[] = [];
      const page = await signedIn('manage', width);
      for (const name of ['Overview', 'Groups', 'Reports', 'Webhooks', 'Events']) {
        if (name !== 'Overview') await nav(page, name);
        await page.getByRole('heading', { level: 1, name }).waitFor();
        await page.waitForLoadState('networkidle');
        violations.push(...(await axe(page, `${name} at ${width}`)));
        await page.screenshot({ path: join(SHOTS, `${name.toLowerCase()}-${width}.png`), fullPage: true });
        const overflow = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
        expect(overflow, `${name} is wider than ${width} px`).toBeLessThanOrEqual(0);
      }
      await page.goBack();
      await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
      await page.reload();
      await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
      await page.context().close();

      expect(violations).toEqual([]);
    });
  }

  it('shows the sign-in page without a serious axe violation', async () => {
    const page = await newPage();
    await page.goto(`${api.stack.apiUrl}/console`);
    await page.getByText('You are signed out.').waitFor();

    const violations = await axe(page, 'Sign-in page');

    expect(violations).toEqual([]);
    await page.context().close();
  });

  it('loads nothing from another origin and logs no error (no CSP violation)', () => {
    expect(leftLoopback).toEqual([]);
    // The browser logs each refusal the console expects and shows (the signed-out 401, the report window's 409).
    const expected = /^Failed to load resource: the server responded with a status of (401|409)/;
    expect(errors.filter((error) => !expected.test(error))).toEqual([]);
  });
});
