import { fork } from 'node:child_process';

/**
 * Runs `exportName` of a bench module in a fresh Node process with V8's default settings, the way the API functions
 * run on Lambda: `npm run bench` itself runs with the report worker's small-heap flags for P3, which would make
 * every other benchmark collect garbage several times as often.
 */
export function inChildProcess<T>(module: string, exportName: string, ...args: unknown[]): Promise<T> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.NODE_OPTIONS;
  delete env.NODE_EXTRA_CA_CERTS;
  const child = fork(new URL('./child-entry.ts', import.meta.url), [], {
    execArgv: ['--import', 'tsx'],
    env,
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    child.once('message', (message: { result?: T; error?: string }) => {
      settled = true;
      if (message.error !== undefined) reject(new Error(message.error));
      else resolve(message.result as T);
    });
    child.once('exit', (code) => {
      if (!settled) reject(new Error(`${module} exited with ${code} before answering`));
    });
    child.send({ module: new URL(module, import.meta.url).href, exportName, args });
  });
}
