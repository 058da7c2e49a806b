import { type ChildProcess, execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const children = new Set<ChildProcess>();

/** Runs `node bin/wpcrm.js …` as an operator would: only the data dir (and `env`), no AWS settings. */
export function wpcrm(
  args: string[],
  dataDir: string,
  timeout = 60_000,
  env: Record<string, string> = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ['bin/wpcrm.js', ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH, WPCRM_DATA_DIR: dataDir, ...env }, timeout },
      (error, stdout, stderr) => {
        children.delete(child);
        resolve({ status: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
      },
    );
    children.add(child);
  });
}

/** Ends every CLI process still running (for afterAll). */
export function killCliProcesses(): void {
  for (const child of children) child.kill();
}
