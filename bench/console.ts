import { chromium } from 'playwright-core';
import { startLocalStack } from '#infra/local/stack';
import { findBrowser } from '#test/browser/browser';
import { stackEnv } from '#test/support/stack-harness';
import { percentile } from './stats.ts';

export interface ConsoleFigures {
  runs: number;
  /** The first page's script and style sheet as sent (gzip), in bytes. */
  firstPageBytes: { script: number; styles: number };
  /** Opening a link → the Overview's chart drawn, per run, in ms (a fresh browser context each time: cold cache). */
  linkToOverviewMs: number[];
  chromium: string;
}

/**
 * The console's weight and speed (CONTRACT §24: the first page's JavaScript and CSS ≤ 100 KB gzip): on the local
 * stack with its demo data, headless Chromium opens a new sign-in link `runs` times, each in a fresh context, and
 * times it until the Overview's charts of the last 24 hours are drawn (the aggregate read answered), counting the
 * encoded bytes of the script and style sheet it loaded.
 */
export async function consoleBenchmark(runs: number): Promise<ConsoleFigures> {
  const stack = await startLocalStack({ env: stackEnv({ POWERTOOLS_LOG_LEVEL: 'SILENT' }) });
  const browser = await chromium.launch({
    executablePath: (await findBrowser()).executablePath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
  });
  try {
    const demo = stack.demo!;
    const token = (await (
      await fetch(`${stack.apiUrl}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(demo.credentials.ACCOUNT_OWNER),
      })
    ).json()) as { accessToken: string };
    const times: number[] = [];
    let bytes = { script: 0, styles: 0 };
    for (let run = 0; run < runs; run++) {
      const { url } = (await (
        await fetch(`${stack.apiUrl}/console-links/${demo.orgId}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token.accessToken}` },
          body: '{}',
        })
      ).json()) as { url: string };
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      const sizes: Promise<{ kind: 'script' | 'styles'; bytes: number }>[] = [];
      page.on('response', (response) => {
        const kind = /\/console\/(scripts|styles)\//.exec(response.url())?.[1];
        if (kind) {
          sizes.push(
            response
              .request()
              .sizes()
              .then((size) => ({
                kind: kind === 'scripts' ? 'script' : 'styles',
                bytes: size.responseBodySize,
              })),
          );
        }
      });
      const started = performance.now();
      await page.goto(url);
      await page
        .getByRole('img', { name: /^Webhook deliveries in the last 24 hours/ })
        .waitFor({ timeout: 30_000 })
        .catch(async (error: unknown) => {
          throw new Error(`${(error as Error).message}\n${await page.locator('body').innerText()}`);
        });
      times.push(performance.now() - started);
      bytes = { script: 0, styles: 0 };
      for (const size of await Promise.all(sizes)) bytes[size.kind] += size.bytes;
      await context.close();
    }
    return { runs, firstPageBytes: bytes, linkToOverviewMs: times, chromium: browser.version() };
  } finally {
    await browser.close();
    await stack.close();
  }
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

/** The summary row and the section of bench/RESULTS.md. */
export function renderConsole(figures: ConsoleFigures): string {
  const total = figures.firstPageBytes.script + figures.firstPageBytes.styles;
  const times = [...figures.linkToOverviewMs].sort((a, b) => a - b);
  const p50 = percentile(times, 50);
  const worst = times.at(-1) ?? 0;
  return [
    `| Console: first page's JavaScript + CSS, gzip | ≤ 100 KB | ${kb(total)} | ${total <= 100 * 1024 ? '✅' : '❌'} |`,
    `| Console: link opened → Overview drawn, headless Chromium, ${figures.runs} cold runs | (measured) | p50 ${Math.round(p50)} ms, worst ${Math.round(worst)} ms | |`,
    '',
    '## Console (bench/console.ts)',
    '',
    `Local stack with its demo data, headless Chromium ${figures.chromium}, a fresh browser context per run (nothing`,
    'cached). Each run creates a sign-in link through `POST /console-links`, opens it and stops the clock when the',
    "Overview's chart of the last 24 hours is drawn — the code spent, the session's token taken, the aggregate read",
    `answered. The first page loads one script (${kb(figures.firstPageBytes.script)}) and one style sheet`,
    `(${kb(figures.firstPageBytes.styles)}), gzip as sent: Preact, the typed client and every page, ${kb(total)} in all.`,
    `Runs: ${figures.linkToOverviewMs.map((ms) => `${Math.round(ms)} ms`).join(', ')}.`,
  ].join('\n');
}
