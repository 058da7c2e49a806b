import { existsSync } from 'node:fs';

/** Debian's package, where .ci/run or a developer installed it. */
const SYSTEM_CHROMIUM = '/usr/bin/chromium';

export interface Browser {
  executablePath: string;
  source: string;
}

/**
 * The Chromium the browser tests drive, never downloaded at install time (playwright-core has no browser of its own):
 * `CHROMIUM_PATH` when set, else Debian's when installed, else the one inside the `@sparticuz/chromium` npm package,
 * which unpacks its brotli-compressed build to the temporary directory on first use, so that `npm ci && npm test`
 * passes on a machine with Node alone.
 */
export async function findBrowser(): Promise<Browser> {
  const chosen = process.env.CHROMIUM_PATH;
  if (chosen) {
    if (!existsSync(chosen)) throw new Error(`CHROMIUM_PATH=${chosen} does not exist`);
    return { executablePath: chosen, source: 'CHROMIUM_PATH' };
  }
  if (existsSync(SYSTEM_CHROMIUM)) return { executablePath: SYSTEM_CHROMIUM, source: 'system (Debian chromium)' };
  const { default: packaged } = await import('@sparticuz/chromium');
  return { executablePath: await packaged.executablePath(), source: 'npm package @sparticuz/chromium' };
}
