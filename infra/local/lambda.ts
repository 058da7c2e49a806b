import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';

const ROOT = join(import.meta.dirname, '..', '..');

// biome-ignore lint/suspicious/noExplicitAny: handlers of every event type pass through here
export type AnyHandler = (event: any, context: Context) => Promise<any>;

const loaded = new Map<string, Promise<AnyHandler>>();
/** Handler runs not yet settled, timed-out ones included: Lambda would freeze them, here they keep running. */
const inFlight = new Set<Promise<unknown>>();
const running = new AsyncLocalStorage<string>();
const stats = new Map<string, { invocations: number; totalMs: number }>();

/** The function whose handler the current code runs in, if any (benchmarks attribute costs with it). */
export function runningFunction(): string | undefined {
  return running.getStore();
}

/** Invocations and summed run time per function since the process started (benchmarks' cost model). */
export function invocationStats(): ReadonlyMap<string, { invocations: number; totalMs: number }> {
  return stats;
}

/** Imports `functions/<name>/handler.ts`, the very module CDK bundles for the Lambda of that name. */
export function loadFunction(name: string): Promise<AnyHandler> {
  let handler = loaded.get(name);
  if (!handler) {
    const url = pathToFileURL(join(ROOT, 'functions', name, 'handler.ts')).href;
    handler = import(url).then((module: { handler: AnyHandler }) => module.handler);
    loaded.set(name, handler);
  }
  return handler;
}

/** A Lambda context for one local invocation with the given timeout. */
export function lambdaContext(functionName: string, timeoutMs: number): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** Invokes a function module with a timeout, as the Lambda service would. */
export async function invoke<T>(name: string, event: unknown, timeoutMs: number): Promise<T> {
  const handler = await loadFunction(name);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${name} timed out after ${timeoutMs} ms`)), timeoutMs);
  });
  const started = performance.now();
  const run = running.run(name, () => handler(event, lambdaContext(name, timeoutMs)));
  inFlight.add(run);
  const settle = () => {
    inFlight.delete(run);
    const entry = stats.get(name) ?? { invocations: 0, totalMs: 0 };
    stats.set(name, { invocations: entry.invocations + 1, totalMs: entry.totalMs + performance.now() - started });
  };
  void run.then(settle, settle);
  try {
    return await Promise.race([run, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Resolves once no handler run is in flight, including runs that outlived their timeout and runs started
 * meanwhile. The local stack calls it after its event sources stopped and before it closes the servers that the
 * handlers write to.
 */
export async function drainInvocations(): Promise<void> {
  while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
}
