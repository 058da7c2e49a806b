import { ConfigError } from '#shared/config/env';
import { closeOnSignals, explainStartFailure, printBanner } from './banner.ts';
import { demoConsoleLink } from './console-link.ts';
import { startLocalStack } from './stack.ts';

/** `npm start`: the whole service on this machine (CONTRACT §10). */
async function main() {
  process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
  // Local development may run on Node 20; the Lambda runtime is Node 22, where the SDK has nothing to warn about.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const stack = await startLocalStack();
  printBanner({ ...stack, label: 'wp-crm local stack', consoleLink: await demoConsoleLink(stack) });
  closeOnSignals(() => stack.close());
}

main().catch((error: unknown) => explainStartFailure(error, (candidate) => candidate instanceof ConfigError));
