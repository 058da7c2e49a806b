import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription, UrlSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Node } from 'constructs';

/**
 * Who the alarm topics notify (the service's AlarmTopicArn and the edge's EdgeAlarmTopicArn), when the operator names
 * them at deploy time instead of subscribing by hand: `-c alarmEmail=oncall@example.com` and
 * `-c alarmHttpsEndpoint=https://…` (docs/deployment.md). SNS asks each endpoint to confirm its subscription first (a
 * link in an email; a SubscriptionConfirmation POST to the URL); until then it receives nothing.
 */
export interface AlarmEndpoints {
  email?: string;
  httpsUrl?: string;
}

/** The context keys. */
export const ALARM_CONTEXT: Readonly<Record<keyof AlarmEndpoints, string>> = {
  email: 'alarmEmail',
  httpsUrl: 'alarmHttpsEndpoint',
};

// An address SNS and mail servers take: a dot-atom local part (RFC 5322, no quoted forms) and a host name.
const EMAIL =
  /^(?=.{1,254}$)[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;

/** The endpoints in the app's context; a malformed value fails the synth and names its key. */
export function parseAlarmEndpoints(node: Node): AlarmEndpoints {
  const email = node.tryGetContext(ALARM_CONTEXT.email) as unknown;
  const httpsUrl = node.tryGetContext(ALARM_CONTEXT.httpsUrl) as unknown;
  const problems: string[] = [];
  if (email !== undefined && (typeof email !== 'string' || !EMAIL.test(email))) {
    problems.push(`-c ${ALARM_CONTEXT.email} must be an email address, not ${JSON.stringify(email)}`);
  }
  if (httpsUrl !== undefined) {
    const problem = httpsProblem(httpsUrl);
    if (problem) problems.push(`-c ${ALARM_CONTEXT.httpsUrl} must be ${problem}`);
  }
  if (problems.length > 0) throw new Error(`invalid alarm endpoints: ${problems.join('; ')}`);
  return {
    ...(email === undefined ? {} : { email: email as string }),
    ...(httpsUrl === undefined ? {} : { httpsUrl: httpsUrl as string }),
  };
}

function httpsProblem(value: unknown): string | undefined {
  const rule = 'an https:// URL';
  if (typeof value !== 'string' || /\s/.test(value) || !URL.canParse(value)) return rule;
  const url = new URL(value);
  if (url.protocol !== 'https:' || url.hostname === '') return rule;
  // SNS takes basic-auth credentials in the URL, but the template (and CloudFormation's console) would show them.
  if (url.username !== '' || url.password !== '') {
    return 'an https:// URL without credentials: they would be stored in the template';
  }
  return undefined;
}

/** Subscribes the operator's endpoints to `topic`. */
export function subscribeAlarmEndpoints(topic: ITopic, endpoints: AlarmEndpoints | undefined): void {
  if (endpoints?.email) topic.addSubscription(new EmailSubscription(endpoints.email));
  if (endpoints?.httpsUrl) topic.addSubscription(new UrlSubscription(endpoints.httpsUrl));
}
