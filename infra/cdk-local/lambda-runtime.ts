import { type ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const BOOTSTRAP = join(import.meta.dirname, 'bootstrap.mjs');
/** Lambda's limit on a synchronous response. */
const MAX_RESPONSE_BYTES = 6 * 1024 * 1024;

/** One AWS::Lambda::Function of the template, as the local runtime runs it. */
export interface FunctionDefinition {
  logicalId: string;
  name: string;
  arn: string;
  /** The bundled asset's directory (LAMBDA_TASK_ROOT). */
  codeDir: string;
  handler: string;
  timeoutSeconds: number;
  memoryMb: number;
  /** The whole environment of the function's processes: the template's variables plus the runtime's. */
  environment: Record<string, string>;
  /** Where the environments' stdout and stderr go (the function's log group). */
  logFd: number;
  /** Execution environments at most; more concurrent invocations wait for one (a local cap, not Lambda's). */
  maxEnvironments: number;
  /** An environment idle this long is shut down (a later invocation cold-starts). */
  idleMs?: number;
  /** Runs once, before the first invocation: what the Lambda service does with the role (logs, traces). */
  onFirstInvoke?: () => void;
}

export interface LambdaError {
  errorType: string;
  errorMessage: string;
  trace?: string[];
}

type RunOutcome = { ok: true; payload: string } | { ok: false; error: LambdaError };

export type InvokeOutcome = RunOutcome & { durationMs: number; coldStart: boolean };

interface Environment {
  child: ChildProcess;
  busy: boolean;
  initialized: boolean;
  idleTimer?: NodeJS.Timeout;
  exited: Promise<void>;
}

/**
 * The execution environments of one function: each is its own Node.js process started from the bundle with the
 * function's environment, running one invocation at a time; the invocation is cut at the function's timeout and
 * the environment killed past its memory size, as Lambda does.
 */
export class FunctionRuntime {
  readonly stats = { invocations: 0, coldStarts: 0, errors: 0, timeouts: 0, peakEnvironments: 0 };
  #environments = new Set<Environment>();
  #waiting: ((environment: Environment | undefined) => void)[] = [];
  #closed = false;

  constructor(readonly def: FunctionDefinition) {}

  async invoke(event: unknown): Promise<InvokeOutcome> {
    if (this.#closed) throw new Error(`${this.def.logicalId} is shut down`);
    if (this.stats.invocations === 0) this.def.onFirstInvoke?.();
    this.stats.invocations += 1;
    const environment = await this.#acquire();
    if (!environment) throw new Error(`${this.def.logicalId} was shut down while the invocation waited`);
    const coldStart = !environment.initialized;
    if (coldStart) this.stats.coldStarts += 1;
    const started = Date.now();
    const outcome = await this.#run(environment, event);
    const durationMs = Date.now() - started;
    if (!outcome.ok) this.stats.errors += 1;
    this.#release(environment);
    return { ...outcome, durationMs, coldStart };
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const waiting of this.#waiting.splice(0)) waiting(undefined);
    const exits = [...this.#environments].map((environment) => {
      environment.child.kill('SIGKILL');
      return environment.exited;
    });
    await Promise.all(exits);
  }

  #acquire(): Promise<Environment | undefined> {
    for (const environment of this.#environments) {
      if (!environment.busy) {
        environment.busy = true;
        clearTimeout(environment.idleTimer);
        return Promise.resolve(environment);
      }
    }
    if (this.#environments.size < this.def.maxEnvironments) return Promise.resolve(this.#spawn());
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  #release(environment: Environment) {
    if (this.#closed) return;
    if (!this.#environments.has(environment)) {
      // It died; a waiting invocation gets a fresh one.
      const next = this.#waiting.shift();
      if (next) next(this.#spawn());
      return;
    }
    const next = this.#waiting.shift();
    if (next) return next(environment);
    environment.busy = false;
    environment.idleTimer = setTimeout(() => this.#discard(environment), this.def.idleMs ?? 300_000);
    environment.idleTimer.unref();
  }

  #spawn(): Environment {
    const child = fork(BOOTSTRAP, [], {
      cwd: this.def.codeDir,
      env: this.def.environment,
      execArgv: [],
      stdio: ['ignore', this.def.logFd, this.def.logFd, 'ipc'],
    });
    const environment: Environment = {
      child,
      busy: true,
      initialized: false,
      exited: new Promise((resolve) => child.once('exit', () => resolve())),
    };
    child.once('exit', () => this.#environments.delete(environment));
    this.#environments.add(environment);
    this.stats.peakEnvironments = Math.max(this.stats.peakEnvironments, this.#environments.size);
    return environment;
  }

  #discard(environment: Environment) {
    this.#environments.delete(environment);
    clearTimeout(environment.idleTimer);
    environment.child.kill('SIGKILL');
  }

  #run(environment: Environment, event: unknown): Promise<RunOutcome> {
    const requestId = randomUUID();
    const { child } = environment;
    const timeoutMs = this.def.timeoutSeconds * 1000;
    return new Promise((resolve) => {
      const finish = (outcome: RunOutcome) => {
        clearTimeout(timer);
        clearInterval(watchdog);
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(outcome);
      };
      const fail = (errorType: string, errorMessage: string) => {
        this.#discard(environment);
        finish({ ok: false, error: { errorType, errorMessage } });
      };
      const onMessage = (message: { type: string; requestId?: string; payload?: string; error?: LambdaError }) => {
        if (message.type === 'initialized') environment.initialized = true;
        if (message.requestId !== requestId) return;
        if (message.type === 'result') {
          const payload = message.payload ?? 'null';
          if (Buffer.byteLength(payload) > MAX_RESPONSE_BYTES) {
            return finish({
              ok: false,
              error: {
                errorType: 'Function.ResponseSizeTooLarge',
                errorMessage: 'Response payload size exceeded maximum allowed payload size (6291556 bytes).',
              },
            });
          }
          return finish({ ok: true, payload });
        }
        if (message.type === 'error') return finish({ ok: false, error: message.error! });
        if (message.type === 'init-error') return fail(message.error!.errorType, message.error!.errorMessage);
      };
      const onExit = (code: number | null, signal: string | null) =>
        fail(
          'Runtime.ExitError',
          `RequestId: ${requestId} Error: Runtime exited with error: ${signal ? `signal: ${signal}` : `exit status ${code}`}`,
        );
      const timer = setTimeout(() => {
        this.stats.timeouts += 1;
        fail('Sandbox.Timedout', `${requestId} Task timed out after ${this.def.timeoutSeconds.toFixed(2)} seconds`);
      }, timeoutMs);
      const watchdog = setInterval(() => {
        if (child.pid && residentMb(child.pid) > this.def.memoryMb) {
          fail('Runtime.OutOfMemory', `RequestId: ${requestId} Error: Runtime exited with error: signal: killed`);
        }
      }, 250);
      child.on('message', onMessage);
      child.once('exit', onExit);
      child.send({
        type: 'invoke',
        requestId,
        event: JSON.stringify(event),
        deadline: Date.now() + timeoutMs,
        functionArn: this.def.arn,
      });
    });
  }
}

/** The process's resident set in MB (Linux /proc); 0 where that cannot be read. */
function residentMb(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}
