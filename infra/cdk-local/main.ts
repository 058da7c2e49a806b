import { closeOnSignals, explainStartFailure, printBanner } from '#infra/local/banner';
import { demoConsoleLink } from '#infra/local/console-link';
import { ConfigError } from '#shared/config/env';
import { startCdkStack } from './stack.ts';

/** `npm run start:cdk`: the synthesized AWS deployment, run on this machine with its IAM enforced (CONTRACT §14). */
async function main() {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  console.log('Synthesizing the CDK app (reused when the sources have not changed)…');
  const stack = await startCdkStack();
  printBanner({
    ...stack,
    label: `wp-crm ${stack.info.stackName} (synthesized template, IAM ${process.env.WPCRM_IAM ?? 'enforce'})`,
    consoleLink: await demoConsoleLink(stack),
  });
  console.log(
    `IAM report: GET ${new URL(stack.apiUrl).origin}/_local/iam with Authorization: Bearer <localRoutesToken of ${stack.dataDir}/stack.json> (also ${stack.dataDir}/iam-report.json on exit)`,
  );
  closeOnSignals(() => stack.close());
}

main().catch((error: unknown) => explainStartFailure(error, (candidate) => candidate instanceof ConfigError));
