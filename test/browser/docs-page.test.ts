import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '#shared/routes/index';
import { useLocalStack } from '#test/support/local-stack';
import { findBrowser } from './browser.ts';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);
const SCREENSHOT = join(import.meta.dirname, '..', '..', 'test-results', 'docs-page.png');

interface OpenApi {
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>;
}

describe('GET /docs in a browser', () => {
  const api = useLocalStack();
  let profile: string;
  let context: BrowserContext;
  let page: Page;
  let document: OpenApi;
  const leftLoopback: string[] = [];
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    profile = mkdtempSync(join(tmpdir(), 'wpcrm-chromium-'));
    const browser = await findBrowser();
    context = await chromium.launchPersistentContext(profile, {
      executablePath: browser.executablePath,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1280, height: 800 },
    });
    await context.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (LOOPBACK.has(url.hostname)) return route.continue();
      leftLoopback.push(url.href);
      return route.abort('blockedbyclient');
    });
    console.info(`browser: ${browser.source}, Chromium ${context.browser()?.version() ?? (await versionOf(context))}`);
    page = context.pages()[0] ?? (await context.newPage());
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => consoleErrors.push(error.message));
    document = (await (await api.call('/openapi.json')).json()) as OpenApi;

    await page.goto(`${api.stack.apiUrl}/docs`);
    await page.locator('[data-section-id$="/operation/getDocs"]').waitFor({ timeout: 30_000 });
    await page.waitForLoadState('networkidle');
    mkdirSync(join(SCREENSHOT, '..'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT });
  });

  afterAll(async () => {
    await context?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  it('loads everything from the service itself, with no console error', () => {
    expect(leftLoopback).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });

  it('renders every operation of the route table with its summary and every response status', async () => {
    for (const route of ROUTES) {
      const operation = document.paths[`/api/wp-crm${route.path}`]![route.method.toLowerCase()]!;
      const section = page.locator(`[data-section-id$="/operation/${route.operationId}"]`);

      const text = await section.innerText();

      expect(text, route.operationId).toContain(route.summary);
      for (const status of Object.keys(operation.responses))
        expect(text, `${route.operationId} ${status}`).toContain(status);
    }
  });

  it('shows request schemas and the problem document of the errors', async () => {
    const createGroup = page.locator('[data-section-id$="/operation/createGroup"]');

    await createGroup.getByRole('button', { name: /^422/ }).click();

    const text = await createGroup.innerText();
    expect(text).toContain('channelId');
    expect(text).toContain('requireJoinApproval');
    expect(text).toContain('CHANNEL_NOT_ELIGIBLE');
    expect(text).toContain('instance');
  });
});

/** A persistent context has no Browser object; the page's user agent names the version. */
async function versionOf(context: BrowserContext): Promise<string> {
  const probe = await context.newPage();
  const agent = String(await probe.evaluate('navigator.userAgent'));
  await probe.close();
  return /Chrome\/([\d.]+)/.exec(agent)?.[1] ?? 'unknown';
}
