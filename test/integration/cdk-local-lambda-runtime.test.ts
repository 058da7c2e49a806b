import { closeSync, openSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type FunctionDefinition, FunctionRuntime, type InvokeOutcome } from '#infra/cdk-local/lambda-runtime';

const HANDLERS = `
export const echo = async (event, context) => ({
  pid: process.pid,
  event,
  env: { ...process.env },
  remainingMs: context.getRemainingTimeInMillis(),
  functionName: context.functionName,
  invokedFunctionArn: context.invokedFunctionArn,
});

export const sleep = (event) => new Promise((resolve) => setTimeout(() => resolve({ pid: process.pid }), event.ms));

export const hog = () => {
  globalThis.hoard = Array.from({ length: 20 }, () => Buffer.alloc(10 * 1024 * 1024, 1));
  return new Promise(() => {});
};

export const fail = async (event) => {
  if (!event.fail) return { pid: process.pid };
  throw Object.assign(new Error('the group is gone'), { name: 'GroupGoneError' });
};

export const reject = () =>
  new Promise(() => {
    Promise.reject(new Error('escaped the handler'));
  });

export const bigint = async () => ({ count: 1n });
`;

let codeDir: string;
let logFd: number;
const runtimes: FunctionRuntime[] = [];

beforeAll(async () => {
  codeDir = await mkdtemp(join(tmpdir(), 'wpcrm-lambda-runtime-'));
  await writeFile(join(codeDir, 'index.mjs'), HANDLERS);
  logFd = openSync(join(codeDir, 'function.log'), 'a');
});

afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((runtime) => runtime.close()));
  vi.unstubAllEnvs();
});

afterAll(async () => {
  closeSync(logFd);
  await rm(codeDir, { recursive: true, force: true });
});

const functionRunning = (handler: string, overrides: Partial<FunctionDefinition> = {}) => {
  const runtime = new FunctionRuntime({
    logicalId: 'GroupsFn',
    name: 'WpCrm-dev-Service-GroupsFn-0123456789AB',
    arn: 'arn:aws:lambda:eu-west-1:000000000000:function:WpCrm-dev-Service-GroupsFn-0123456789AB',
    codeDir,
    handler: `index.${handler}`,
    timeoutSeconds: 2,
    memoryMb: 256,
    maxEnvironments: 4,
    logFd,
    environment: {
      LAMBDA_TASK_ROOT: codeDir,
      _HANDLER: `index.${handler}`,
      AWS_LAMBDA_FUNCTION_NAME: 'WpCrm-dev-Service-GroupsFn-0123456789AB',
      GROUPS_TABLE: 'WpCrm-dev-Data-Table-ABCDEF012345',
    },
    ...overrides,
  });
  runtimes.push(runtime);
  return runtime;
};

const payloadOf = <T>(outcome: InvokeOutcome): T => {
  if (!outcome.ok) throw new Error(`${outcome.error.errorType}: ${outcome.error.errorMessage}`);
  return JSON.parse(outcome.payload) as T;
};

const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
};

describe('FunctionRuntime', () => {
  it('runs the handler in its own process with exactly the environment it was given', async () => {
    vi.stubEnv('WPCRM_ONLY_IN_THE_TEST_PROCESS', 'leak');
    const fn = functionRunning('echo');

    const outcome = await fn.invoke({ hello: 'world' });

    const result = payloadOf<{ pid: number; event: unknown; env: Record<string, string>; functionName: string }>(
      outcome,
    );
    expect(result.pid).not.toBe(process.pid);
    expect(result.event).toEqual({ hello: 'world' });
    expect(result.env).toEqual({
      LAMBDA_TASK_ROOT: codeDir,
      _HANDLER: 'index.echo',
      AWS_LAMBDA_FUNCTION_NAME: 'WpCrm-dev-Service-GroupsFn-0123456789AB',
      GROUPS_TABLE: 'WpCrm-dev-Data-Table-ABCDEF012345',
    });
    expect(result.functionName).toBe('WpCrm-dev-Service-GroupsFn-0123456789AB');
    expect(outcome.coldStart).toBe(true);
  });

  it("gives the handler a context whose remaining time counts down from the function's timeout", async () => {
    const fn = functionRunning('echo', { timeoutSeconds: 2 });

    const result = payloadOf<{ remainingMs: number; invokedFunctionArn: string }>(await fn.invoke({}));

    expect(result.remainingMs).toBeGreaterThan(1000);
    expect(result.remainingMs).toBeLessThanOrEqual(2000);
    expect(result.invokedFunctionArn).toBe(fn.def.arn);
  });

  it('reuses a warm environment for the next invocation', async () => {
    const fn = functionRunning('echo');

    const first = await fn.invoke({});
    const second = await fn.invoke({});

    expect(second.coldStart).toBe(false);
    expect(payloadOf<{ pid: number }>(second).pid).toBe(payloadOf<{ pid: number }>(first).pid);
    expect(fn.stats).toMatchObject({ invocations: 2, coldStarts: 1, peakEnvironments: 1 });
  });

  it('ends an invocation past the timeout with Sandbox.Timedout and cold-starts the next one', async () => {
    const fn = functionRunning('sleep', { timeoutSeconds: 1 });

    const timedOut = await fn.invoke({ ms: 10_000 });
    const next = await fn.invoke({ ms: 0 });

    expect(timedOut).toMatchObject({
      ok: false,
      error: {
        errorType: 'Sandbox.Timedout',
        errorMessage: expect.stringMatching(/Task timed out after 1\.00 seconds$/),
      },
    });
    expect(next).toMatchObject({ ok: true, coldStart: true });
    expect(fn.stats).toMatchObject({ timeouts: 1, coldStarts: 2 });
  });

  it('ends an environment that grows beyond its memory size with Runtime.OutOfMemory', async () => {
    const fn = functionRunning('hog', { memoryMb: 64, timeoutSeconds: 10 });

    const outcome = await fn.invoke({});

    expect(outcome).toMatchObject({ ok: false, error: { errorType: 'Runtime.OutOfMemory' } });
    expect(outcome.durationMs).toBeLessThan(10_000);
  });

  it('gives the errorType and errorMessage of an error the handler throws and keeps the environment warm', async () => {
    const fn = functionRunning('fail');

    const failed = await fn.invoke({ fail: true });
    const next = await fn.invoke({});

    expect(failed).toMatchObject({
      ok: false,
      error: { errorType: 'GroupGoneError', errorMessage: 'the group is gone' },
    });
    expect(next).toMatchObject({ ok: true, coldStart: false });
    expect(fn.stats).toMatchObject({ errors: 1, coldStarts: 1 });
  });

  it('ends the environment on an unhandled rejection with Runtime.ExitError', async () => {
    const fn = functionRunning('reject');

    const outcome = await fn.invoke({});
    const next = fn.invoke({});

    expect(outcome).toMatchObject({
      ok: false,
      error: { errorType: 'Runtime.ExitError', errorMessage: expect.stringContaining('exit status 128') },
    });
    expect(await next).toMatchObject({ ok: false, coldStart: true });
  });

  it('fails with Runtime.HandlerNotFound when the module does not export the handler', async () => {
    const fn = functionRunning('missing');

    const outcome = await fn.invoke({});

    expect(outcome).toMatchObject({
      ok: false,
      error: { errorType: 'Runtime.HandlerNotFound', errorMessage: 'index.missing is undefined or not exported' },
    });
  });

  it('fails with Runtime.ImportModuleError when the handler module does not exist', async () => {
    const fn = functionRunning('echo', { environment: { LAMBDA_TASK_ROOT: codeDir, _HANDLER: 'absent.handler' } });

    const outcome = await fn.invoke({});

    expect(outcome).toMatchObject({ ok: false, error: { errorType: 'Runtime.ImportModuleError' } });
  });

  it('fails an invocation whose result cannot be serialised', async () => {
    const fn = functionRunning('bigint');

    const outcome = await fn.invoke({});

    expect(outcome).toMatchObject({ ok: false, error: { errorType: 'TypeError' } });
  });

  it('runs concurrent invocations in at most maxEnvironments environments, completing every one', async () => {
    const fn = functionRunning('sleep', { maxEnvironments: 2 });

    const outcomes = await Promise.all([fn.invoke({ ms: 300 }), fn.invoke({ ms: 300 }), fn.invoke({ ms: 300 })]);

    const pids = new Set(outcomes.map((outcome) => payloadOf<{ pid: number }>(outcome).pid));
    expect(pids.size).toBe(2);
    expect(fn.stats).toMatchObject({ invocations: 3, coldStarts: 2, peakEnvironments: 2 });
  });

  it('leaves no process of the function running once closed', async () => {
    const fn = functionRunning('sleep', { maxEnvironments: 2 });
    const outcomes = await Promise.all([fn.invoke({ ms: 100 }), fn.invoke({ ms: 100 })]);
    const pids = outcomes.map((outcome) => payloadOf<{ pid: number }>(outcome).pid);

    await fn.close();

    expect(new Set(pids).size).toBe(2);
    expect(pids.map(isRunning)).toEqual([false, false]);
    await expect(fn.invoke({ ms: 0 })).rejects.toThrow(/shut down/);
  });

  it('leaves no process running for an invocation still waiting for an environment when closed', async () => {
    const fn = functionRunning('sleep', { maxEnvironments: 1, timeoutSeconds: 5 });
    const running = fn.invoke({ ms: 4_000 });
    // Settle handlers attached before close(): the waiting invocation is rejected during it.
    const waiting = fn.invoke({ ms: 0 }).then(
      (outcome) => outcome.ok && isRunning(payloadOf<{ pid: number }>(outcome).pid),
      () => false,
    );
    await expect.poll(() => fn.stats.invocations).toBe(2);

    await fn.close();

    const leftRunning = await waiting;
    expect(await running).toMatchObject({ ok: false, error: { errorType: 'Runtime.ExitError' } });
    expect(leftRunning).toBe(false);
  });
});
