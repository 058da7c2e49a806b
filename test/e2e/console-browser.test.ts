import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findBrowser } from '#test/browser/browser';
import { baseUrl, call, localDeployment } from './target.ts';

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run'];

// CONTRACT §24 under `npm run start:cdk` (or the deployment BASE_URL names): the console's page and assets come from
// the synthesized stack's own function, and one person's visit goes through it in Chromium — a link made by the API,
// the Overview, a group created and seen created without a reload, sign-out. With IAM enforced, global-setup fails
// the suite on any call a function was denied.
describe('the console in a browser, served by the deployment', () => {
  const deployment = localDeployment();
  const { orgId } = deployment;
  const origin = new URL(baseUrl).origin;
  const elsewhere: string[] = [];
  const errors: string[] = [];
  let browser: Browser;

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: (await findBrowser()).executablePath, args: CHROMIUM_ARGS });
  });

  afterAll(async () => {
    await browser?.close();
  });

  /** A fresh browser (its own cookies) that reaches nothing but the deployment. */
  async function newPage(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.origin === origin) return route.continue();
      elsewhere.push(url.href);
      return route.abort('blockedbyclient');
    });
    const page = await context.newPage();
    page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
    page.on('pageerror', (error) => errors.push(error.message));
    return page;
  }

  it('signs in through a link the API made, shows the Overview, creates a group seen created without a reload, and signs out', async () => {
    const owner = await deployment.token('ACCOUNT_OWNER');
    const created = await call(`/console-links/${orgId}`, { method: 'POST', token: owner, json: {} });
    expect(created.status).toBe(201);
    const { url } = (await created.json()) as { url: string };
    expect(url.startsWith(`${baseUrl}/console/#code=${orgId}.`)).toBe(true);
    const page = await newPage();

    // The link's …/console/ answers with the page's own address; the browser keeps the fragment, the page spends the
    // code and takes it out of the address bar.
    await page.goto(url);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor({ timeout: 30_000 });
    expect(page.url()).toBe(`${baseUrl}/console`);
    await page.getByRole('heading', { name: 'Last 24 hours' }).waitFor();

    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Groups', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Groups' }).waitFor();
    expect(page.url()).toBe(`${baseUrl}/console/groups`);
    await page.evaluate('window.__sameDocument = true');
    await page.getByRole('button', { name: 'Create group' }).click();
    const form = page.getByRole('form', { name: 'Create group' });
    const subject = `Console e2e ${Date.now()}`;
    await form.getByLabel('Channel').selectOption(deployment.demo.channels.eligible);
    await form.getByLabel('Subject').fill(subject);
    await form.getByLabel('Description').fill('Made in the console under start:cdk');
    await form.getByRole('button', { name: 'Create group' }).click();

    const progress = page.getByRole('status').filter({ hasText: subject });
    await expect.poll(() => progress.innerText(), { timeout: 60_000, interval: 500 }).toMatch(/\bcreated\b/);
    expect(await page.evaluate('window.__sameDocument')).toBe(true);
    // A page's own address works after a reload too (the session comes back from its cookie).
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Groups' }).waitFor({ timeout: 30_000 });
    await page.getByRole('link', { name: subject }).waitFor({ timeout: 30_000 });

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You are signed out.').waitFor();
    await page.reload();
    await page.getByText('You are signed out.').waitFor({ timeout: 30_000 });
    await page.context().close();

    expect(elsewhere).toEqual([]);
    // The browser logs the signed-out page's expected 401 (the refresh after the reload), and nothing else.
    expect(errors.filter((error) => !/status of 401/.test(error))).toEqual([]);
  }, 180_000);
});
