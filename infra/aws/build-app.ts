import { type App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ServiceStack } from './stacks/service-stack.ts';
import { parseStage, type Stage } from './stage.ts';

/**
 * Adds the service's stack for `stage` (default: the `stage` context, else dev) to `app`, with the cdk-nag
 * AwsSolutions checks as a validation plugin: an unacknowledged finding fails the synth. Tests call it with
 * their own App.
 */
export function buildApp(app: App, stage: Stage = parseStage(app.node.tryGetContext('stage'))): ServiceStack {
  const stack = new ServiceStack(app, `WpCrm-${stage}`, {
    stage,
    description: `wp-crm groups & reports service (${stage})`,
    jwtIssuer: app.node.tryGetContext('jwtIssuer') ?? `https://wp-crm.${stage}`,
    jwtAudience: app.node.tryGetContext('jwtAudience') ?? 'wp-crm-api',
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return stack;
}
