// The runtime inside one local Lambda execution environment (one process): it loads the function's bundled handler
// from LAMBDA_TASK_ROOT as `_HANDLER` names it, then runs one invocation at a time for its parent, as the Node.js
// runtime interface client does on Lambda. Plain JavaScript: it must run without tsx, like the bundles themselves.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = process.env.LAMBDA_TASK_ROOT;
const [moduleName, exportName] = splitHandler(process.env._HANDLER ?? 'index.handler');
let handler;

function splitHandler(value) {
  const dot = value.lastIndexOf('.');
  return [value.slice(0, dot), value.slice(dot + 1)];
}

async function load() {
  const file = ['.mjs', '.js', '.cjs'].map((ext) => join(root, moduleName + ext)).find((path) => existsSync(path));
  if (!file)
    throw Object.assign(new Error(`Cannot find module '${moduleName}'`), { name: 'Runtime.ImportModuleError' });
  const module = await import(pathToFileURL(file).href);
  const fn = module[exportName] ?? module.default?.[exportName];
  if (typeof fn !== 'function') {
    throw Object.assign(new Error(`${moduleName}.${exportName} is undefined or not exported`), {
      name: 'Runtime.HandlerNotFound',
    });
  }
  return fn;
}

function context(message) {
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: process.env.AWS_LAMBDA_FUNCTION_NAME,
    functionVersion: process.env.AWS_LAMBDA_FUNCTION_VERSION,
    invokedFunctionArn: message.functionArn,
    memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    awsRequestId: message.requestId,
    logGroupName: process.env.AWS_LAMBDA_LOG_GROUP_NAME,
    logStreamName: process.env.AWS_LAMBDA_LOG_STREAM_NAME,
    getRemainingTimeInMillis: () => Math.max(0, message.deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

const errorOf = (error) => ({
  errorType: error?.name ?? 'Error',
  errorMessage: error?.message ?? String(error),
  trace: String(error?.stack ?? '').split('\n'),
});

process.on('message', async (message) => {
  if (message?.type !== 'invoke') return;
  const started = Date.now();
  try {
    if (!handler) {
      handler = await load().catch((error) => {
        process.send({ type: 'init-error', requestId: message.requestId, error: errorOf(error) });
        process.exit(1);
      });
      process.send({ type: 'initialized', initMs: Date.now() - started });
    }
    console.log(`START RequestId: ${message.requestId}`);
    const result = await handler(JSON.parse(message.event), context(message));
    // Lambda serialises the result with JSON.stringify: what cannot be serialised fails the invocation.
    process.send({ type: 'result', requestId: message.requestId, payload: JSON.stringify(result ?? null) });
  } catch (error) {
    console.error(JSON.stringify({ level: 'ERROR', message: 'Invoke Error', ...errorOf(error) }));
    process.send({ type: 'error', requestId: message.requestId, error: errorOf(error) });
  } finally {
    console.log(`END RequestId: ${message.requestId} Duration: ${Date.now() - started} ms`);
  }
});

// An error that escapes the handler ends the environment, as on Lambda ("Runtime exited with error").
process.on('unhandledRejection', (reason) => {
  console.error(JSON.stringify({ level: 'ERROR', message: 'Unhandled Promise Rejection', ...errorOf(reason) }));
  process.exit(128);
});
process.send({ type: 'ready' });
