import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import {
  type App,
  type IPolicyValidationContext,
  type IPolicyValidationContextBeta1,
  type IPolicyValidationPlugin,
  NestedStack,
  type PolicyValidationPluginReport,
  type PolicyValidationPluginReportBeta1,
  type PolicyViolation,
  Validations,
} from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { DataStore } from './constructs/data-store.ts';

/**
 * AWS Control Tower's proactive controls, checked at synth time: `npm run synth -- -c validate=controltower` runs
 * @cdklabs/cdk-validator-cfnguard (cfn-guard and Control Tower's guard rules, shipped inside the package: offline)
 * over every template, nested stacks' included. A control the stack does not meet on purpose is acknowledged below
 * with its reason (CONTROL_TOWER_EXCEPTIONS; the table of docs/deployment.md is this table), so the check fails
 * only on a new violation. test/infra/control-tower.test.ts runs it for dev, dev with the edge and prod with the edge.
 */

/** The plugin's name, which is also the namespace of its rules' acknowledgements (`cdk-validator-cfnguard::<rule>`). */
export const CONTROL_TOWER_PLUGIN = 'cdk-validator-cfnguard';

/** `-c validate=controltower`: the context that turns the check on. */
export const CONTROL_TOWER_CONTEXT = { key: 'validate', value: 'controltower' } as const;

/** A proactive control the stack does not meet, and why. */
export interface ControlException {
  /** Control Tower's id, e.g. `CT.SQS.PR.1`. */
  control: string;
  /** Which resources do not meet it. */
  resources: string;
  /** Why the stack does not meet it. */
  reason: string;
  /**
   * What an operator who deploys into an account governed by the control can do. "Exempt": Control Tower enables a
   * control per organizational unit, so the account's OU must not have it enabled.
   */
  operator: string;
  /**
   * The constructs the exception covers, when not every resource the control checks: any other resource that breaks
   * the control still fails the check.
   */
  scope?: (app: IConstruct) => IConstruct[];
}

/** The reports bucket of every stage (DataStore). */
const reportsBuckets = (app: IConstruct): IConstruct[] =>
  app.node
    .findAll()
    .filter((construct): construct is DataStore => construct instanceof DataStore)
    .map((store) => store.reports);

const REPORTS_BUCKET = 'The reports bucket (`ReportsBucketName`)';

/**
 * The controls the synthesized stacks (dev; dev with the edge; prod with the edge) do not meet. An entry whose control
 * the stacks meet again fails test/infra/control-tower.test.ts, so the table cannot go stale.
 */
export const CONTROL_TOWER_EXCEPTIONS: readonly ControlException[] = [
  {
    control: 'CT.APIGATEWAY.PR.5',
    resources: 'Every HTTP API route',
    reason:
      'The functions verify the ES256 bearer token themselves (keys rotated through the table), so that a refused ' +
      "token gets the contract's problem+json 401 with `WWW-Authenticate` and its error code; an API Gateway " +
      'authorizer answers with a body of its own. The token, JWKS, health, docs, OpenAPI and Meta webhook routes ' +
      "and `$default` are public by design (the webhook is verified by Meta's signature).",
    operator: 'Exempt. An authorizer would change what the API answers to clients.',
  },
  {
    control: 'CT.CLOUDWATCH.PR.2',
    resources: 'Every log group (functions and API access log: 1 month; edge WAF log: 3 months)',
    reason:
      "Logs serve operations; the service's lasting record is the table (domain events, reports). A year would " +
      "store twelve times the log volume of a month at the capacity plan's traffic (docs/SCALE.md).",
    operator:
      'Exempt, or set `retention` to `RetentionDays.ONE_YEAR` or more in infra/aws/constructs/app-function.ts, ' +
      'service-api.ts, jwt-keys.ts and infra/aws/stacks/edge-stack.ts.',
  },
  {
    control: 'CT.CLOUDWATCH.PR.3',
    resources: 'Every log group',
    reason:
      'CloudWatch Logs already encrypts every log group at rest with keys it manages. A customer key adds a key ' +
      'policy for the Logs service and KMS requests, and all logging stops if the key is disabled.',
    operator:
      "Exempt, or create a KMS key whose policy lets `logs.<region>.amazonaws.com` use it for this account's log " +
      'groups and pass it as `encryptionKey` to every log group (same files as above).',
  },
  {
    control: 'CT.LAMBDA.PR.2',
    resources: 'The permissions that let API Gateway invoke the route functions',
    reason:
      'False positive of the offline check: each permission names the service principal ' +
      "`apigateway.amazonaws.com` and a `SourceArn` limited to this API's route, but that ARN is an `Fn::Join` " +
      '(region, account, API id), and the guard rule accepts only a literal or a reference to a resource of the ' +
      'same template.',
    operator: "Nothing to change: the permissions are not public. If the account's hook refuses them too, exempt.",
  },
  {
    control: 'CT.LAMBDA.PR.3',
    resources: 'Every function',
    reason:
      "No VPC resource to reach: every dependency is an AWS API (IAM-authorized, over TLS) or the internet (Meta's " +
      "Graph API, customers' webhook URLs). In a VPC the functions would need NAT gateways for that egress; the " +
      'webhook sender already refuses private addresses itself.',
    operator:
      'Exempt, or add a VPC with NAT gateways (and VPC endpoints for DynamoDB, S3, SQS, Secrets Manager, KMS, ' +
      'EventBridge) and `vpc` on every function: a change to the stack, with a monthly cost.',
  },
  {
    control: 'CT.S3.PR.2',
    resources: REPORTS_BUCKET,
    reason:
      'Report files are short-lived exports read through pre-signed URLs that the API issues and logs; a log ' +
      'bucket would itself need access logging.',
    operator: 'Exempt (CloudTrail data events on the bucket record every read, if you need that).',
    scope: reportsBuckets,
  },
  {
    control: 'CT.S3.PR.4',
    resources: REPORTS_BUCKET,
    reason: "Nothing reacts to the bucket's events: the report worker announces a finished file (`report.completed`).",
    operator:
      "Exempt, or set the bucket's `NotificationConfiguration` to send its events to EventBridge (on the L1 " +
      "`CfnBucket` in infra/aws/constructs/data-store.ts: CDK's `eventBridgeEnabled` goes through a custom " +
      'resource, which the control does not see).',
    scope: reportsBuckets,
  },
  {
    control: 'CT.S3.PR.9',
    resources: REPORTS_BUCKET,
    reason:
      'Report files must be deleted when they expire (`REPORT_RETENTION_SECONDS`, default 7 days; the lifecycle ' +
      'rule a day later). Object Lock would keep them.',
    operator: 'Exempt: Object Lock would keep reports the service promises to delete.',
    scope: reportsBuckets,
  },
  {
    control: 'CT.S3.PR.10',
    resources: REPORTS_BUCKET,
    reason:
      'SSE-S3 (S3-managed keys). The files are downloaded through pre-signed URLs, which with SSE-KMS work only ' +
      'while the signing function may decrypt with the key, and each upload and download becomes a KMS request.',
    operator:
      'Exempt, or use `BucketEncryption.KMS` with a key of the stack and `bucketKeyEnabled: true` in ' +
      'data-store.ts, and let the report worker (encrypt) and the functions that sign download URLs (decrypt) use it.',
    scope: reportsBuckets,
  },
  {
    control: 'CT.S3.PR.11',
    resources: REPORTS_BUCKET,
    reason:
      'A report is written once and deleted at its expiry; versioning would keep deleted reports as noncurrent ' +
      'versions. Every file can be made again from the table.',
    operator: 'Exempt, or set `versioned: true` with a lifecycle rule that expires noncurrent versions after a day.',
    scope: reportsBuckets,
  },
  {
    control: 'CT.CLOUDFRONT.PR.1',
    resources: 'Edge: the distribution',
    reason:
      'Not applicable: the origin is the API, not a bucket whose listing `/` could expose; `/` is not a route ' +
      'of the API.',
    operator: 'Exempt.',
  },
  {
    control: 'CT.CLOUDFRONT.PR.4',
    resources: 'Edge: the distribution',
    reason: 'The API is deployed in one region; there is no second origin to fail over to.',
    operator: 'Exempt, or deploy the service stack in a second region and put both origins in an origin group.',
  },
  {
    control: 'CT.CLOUDFRONT.PR.5',
    resources: 'Edge: the distribution',
    reason:
      "At the capacity plan's 450 million webhook posts a day, standard logs would be hundreds of gigabytes a " +
      "day; the API's access log has every request that reached it and the WAF log every blocked one.",
    operator: 'Exempt, or set `enableLogging` and a log bucket on the distribution in infra/aws/stacks/edge-stack.ts.',
  },
];

// ---------------------------------------------------------------------------------------------------------------
// The package's rules

const PACKAGE_DIR = dirname(createRequire(import.meta.url).resolve('@cdklabs/cdk-validator-cfnguard/package.json'));
const RULES_DIR = join(PACKAGE_DIR, 'rules', 'control-tower');

/** One of the package's guard rules and the control it implements. */
export interface GuardRule {
  /** Control Tower's id, e.g. `CT.SQS.PR.1`. */
  control: string;
  /** The rule's name in the guard file, as violations name it: `sqs_dlq_check`. */
  rule: string;
  /** What the control requires (Control Tower's title). */
  title: string;
  /** The guard file. */
  file: string;
  /** The resource types it checks; a template with none of them is skipped by the rule. */
  types: ReadonlySet<string>;
  /**
   * The rule reads resources only through `Resources.*[ Type == … ]` (its `types`), and looks another up only by a
   * key found in them to see that it exists and has a given type: it finds the same in a copy of the template with
   * its types' resources and, for each resource they name, a stub with the type alone.
   */
  selective: boolean;
}

/**
 * The types a guard file selects with `Resources.*[ Type == %CONST or … ]`, and whether it reads resources only so
 * (GuardRule.selective): any other use of `Resources`, or a looked-up resource read beyond `not empty` and its `Type`,
 * makes it not selective.
 */
function guardSelection(text: string): { types: Set<string>; selective: boolean } {
  const code = text
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n')
    .replace(/\s+/g, ' ');
  const constants = new Map<string, string[]>();
  for (const [, name, value] of code.matchAll(/\blet (\w+) = (["'][^"']*["']|\[[^\]]*\])/g)) {
    constants.set(
      name!,
      [...value!.matchAll(/["']([^"']*)["']/g)].map((match) => match[1]!),
    );
  }
  const types = new Set<string>();
  let selective = true;
  let understood = 0;
  for (const [, body] of code.matchAll(/\bResources\.\* ?\[([^\]]*)\]/g)) {
    for (const term of body!.trim().split(/ or /)) {
      const match = /^Type (?:==|in) (?:%(\w+)|["']([^"']+)["'])$/.exec(term.trim());
      const values = match?.[2] ? [match[2]] : match?.[1] ? constants.get(match[1]) : undefined;
      if (values?.length) for (const value of values) types.add(value);
      else selective = false;
    }
    understood++;
  }
  for (const [, name] of code.matchAll(/\blet (\w+) = %\w+\.Resources ?\[ ?keys == %\w+ ?\]/g)) {
    understood++;
    for (const [, use] of code.matchAll(new RegExp(`%${name}\\b( not empty| \\{ Type (?:==|in) %\\w+ \\})?`, 'g'))) {
      if (!use) selective = false;
    }
  }
  const mentions = code.match(/\bResources\b/g)?.length ?? 0;
  const exists = code.match(/\bResources exists\b/g)?.length ?? 0;
  if (mentions !== understood + exists || types.size === 0) selective = false;
  return { types, selective };
}

let guardRules: ReadonlyMap<string, GuardRule> | undefined;

/** The package's Control Tower rules by control id. */
export function controlTowerRules(): ReadonlyMap<string, GuardRule> {
  if (guardRules) return guardRules;
  const rules = new Map<string, GuardRule>();
  const guardDir = join(RULES_DIR, 'cfn-guard');
  for (const service of readdirSync(guardDir)) {
    for (const name of readdirSync(join(guardDir, service))) {
      const file = join(guardDir, service, name);
      const text = readFileSync(file, 'utf8');
      const metadata = JSON.parse(
        readFileSync(join(RULES_DIR, 'metadata', service, `${basename(name, '.guard')}.metadata.json`), 'utf8'),
      ) as { Id: string; DisplayName: string; EvaluatedResourceTypes?: string[] };
      const rule = /^rule (\w+) when/m.exec(text)?.[1];
      if (!rule) throw new Error(`${file}: no rule`);
      const { types, selective } = guardSelection(text);
      rules.set(metadata.Id, {
        control: metadata.Id,
        rule,
        title: metadata.DisplayName,
        file,
        // A rule that reads resources some other way runs on every template with a type it evaluates.
        types: selective ? types : new Set([...types, ...(metadata.EvaluatedResourceTypes ?? [])]),
        selective,
      });
    }
  }
  guardRules = rules;
  return rules;
}

/** The package's rule for a control; throws for a control it does not have. */
export function guardRule(control: string): GuardRule {
  const rule = controlTowerRules().get(control);
  if (!rule) throw new Error(`${CONTROL_TOWER_PLUGIN} has no rule for ${control}`);
  return rule;
}

// ---------------------------------------------------------------------------------------------------------------
// The plugin

interface CfnTemplate {
  Resources?: Record<string, { Type: string; [key: string]: unknown }>;
  [key: string]: unknown;
}

/**
 * CfnGuardValidator with every Control Tower rule, over the stacks' templates and their nested stacks' templates.
 * CDK gives a validation plugin the top-level templates only; the service stack's resources are almost all in its
 * six nested stacks, so this adds their templates (NestedStack.templateFile, in the same cloud assembly).
 *
 * cfn-guard's time grows with rules × the size of each template (all 237 rules over the 8 templates of prod with
 * the edge take one to two minutes). But a rule skips a template without a resource of its types, and a selective
 * rule (GuardRule.selective: all but 3 of the package's, and every one that meets this stack's resources) reads
 * nothing but its types' resources and the types of the resources they name. So the rules are run in groups of
 * the same types, each group once over copies of the templates cut down to what it reads (in a temporary
 * directory: a plugin may not write to the cloud assembly): the same findings in a few seconds. Violations name
 * the original templates.
 */
export class ControlTowerChecks implements IPolicyValidationPlugin {
  readonly name = CONTROL_TOWER_PLUGIN;
  readonly version = new CfnGuardValidator({ controlTowerRulesEnabled: false }).version;
  readonly ruleIds = [...controlTowerRules().keys()];

  validate(context: IPolicyValidationContext): PolicyValidationPluginReport {
    const templates = [...context.templatePaths, ...nestedTemplatePaths(context)].map((path) => {
      const template = JSON.parse(readFileSync(path, 'utf8')) as CfnTemplate;
      const types = new Set(Object.values(template.Resources ?? {}).map((resource) => resource.Type));
      return { path, template, types };
    });
    // Selective rules by their types; the others (`*`) read whole templates.
    const groups = new Map<string, { types: ReadonlySet<string>; rules: string[] }>();
    for (const rule of controlTowerRules().values()) {
      if (!templates.some(({ types }) => [...rule.types].some((type) => types.has(type)))) continue;
      const key = rule.selective ? [...rule.types].sort().join(' ') : '*';
      const group = groups.get(key) ?? { types: new Set<string>(), rules: [] };
      group.types = new Set([...group.types, ...rule.types]);
      group.rules.push(rule.file);
      groups.set(key, group);
    }

    const workDir = mkdtempSync(join(tmpdir(), 'wp-crm-control-tower-'));
    try {
      const tasks = [...groups].map(([key, group], groupIndex): GuardTask => {
        const original = new Map<string, string>();
        let bytes = 0;
        for (const [templateIndex, { path, template, types }] of templates.entries()) {
          if (![...group.types].some((type) => types.has(type))) continue;
          const data = key === '*' ? template : cutDown(template, group.types);
          const copy = key === '*' ? path : join(workDir, `${groupIndex}-${templateIndex}.json`);
          const text = JSON.stringify(data);
          if (copy !== path) writeFileSync(copy, text);
          bytes += text.length;
          original.set(copy, path);
        }
        return { rules: group.rules, templatePaths: [...original.keys()], original, cost: bytes * group.rules.length };
      });
      const violations = runGuard(tasks).flatMap((report, index) =>
        report.violations.map((violation) => ({
          ...violation,
          violatingResources: violation.violatingResources.map((resource) => ({
            ...resource,
            templatePath: tasks[index]!.original.get(resource.templatePath ?? '') ?? resource.templatePath,
          })),
        })),
      );
      const reported = withoutUnnamedResources(violations);
      console.error(summary(reported, templates.length));
      return { success: reported.length === 0, violations: reported };
    } finally {
      rmSync(workDir, { recursive: true, force: true });
    }
  }
}

/**
 * One line per control not met, for the console: CDK prints only the violations nobody acknowledged, so without it
 * `-c validate=controltower` would say nothing when the stack is as documented.
 */
function summary(violations: PolicyViolation[], templates: number): string {
  const controls = new Map([...controlTowerRules().values()].map((rule) => [rule.rule, rule]));
  const documented = new Set(CONTROL_TOWER_EXCEPTIONS.map((exception) => exception.control));
  const resources = new Map<string, Set<string>>();
  for (const violation of violations) {
    const ids = resources.get(violation.ruleName) ?? new Set<string>();
    for (const resource of violation.violatingResources)
      ids.add(`${resource.templatePath} ${resource.resourceLogicalId}`);
    resources.set(violation.ruleName, ids);
  }
  const lines = [...resources].map(([ruleName, ids]) => {
    const rule = controls.get(ruleName);
    const control = rule?.control ?? ruleName;
    const status = documented.has(control) ? 'documented' : 'NEW';
    const count = `${ids.size} resource${ids.size === 1 ? '' : 's'}`;
    return `  ${control.padEnd(19)} ${status.padEnd(10)} ${count.padStart(13)}  ${rule?.title ?? ''}`;
  });
  return [
    `AWS Control Tower proactive controls: ${lines.length} not met (${CONTROL_TOWER_PLUGIN}, ` +
      `${controlTowerRules().size} rules over ${templates} templates, nested stacks included)`,
    ...lines.sort(),
    '  documented: docs/deployment.md → AWS Control Tower proactive controls (infra/aws/control-tower.ts); NEW fails the ' +
      'synth. Every finding: validation-report.json in the cloud assembly.',
  ].join('\n');
}

/** One run of cfn-guard through the plugin: some rules over some templates (copies, `original` names them). */
interface GuardTask {
  rules: string[];
  templatePaths: string[];
  original: ReadonlyMap<string, string>;
  /** Bytes × rules, to share the tasks out evenly. */
  cost: number;
}

const MAX_BUFFER = 256 * 1024 * 1024;

/**
 * A worker thread running its share of the tasks through CfnGuardValidator (whose cfn-guard runs block only the
 * thread that runs them). It posts each report on its port, then counts it done in the shared array.
 */
const GUARD_WORKER = `
const { workerData } = require('node:worker_threads');
const { port, done, plugin, tasks, maxBuffer } = workerData;
for (const task of tasks) {
  let message;
  try {
    const { CfnGuardValidator } = require(plugin);
    const guard = new CfnGuardValidator({ controlTowerRulesEnabled: false, rules: task.rules, maxBuffer });
    message = { index: task.index, report: guard.validate({ templatePaths: task.templatePaths }) };
  } catch (error) {
    message = { index: task.index, error: String((error && error.stack) || error) };
  }
  port.postMessage(message);
  Atomics.add(done, 0, 1);
  Atomics.notify(done, 0);
}
`;

/**
 * The tasks' reports, in order. A validation plugin is synchronous, but the tasks are independent: with more than
 * one CPU they run in worker threads, and this thread waits for them (Atomics.wait) and takes their reports
 * (receiveMessageOnPort).
 */
function runGuard(tasks: GuardTask[]): PolicyValidationPluginReportBeta1[] {
  const threads = Math.min(tasks.length, availableParallelism());
  if (threads <= 1) {
    return tasks.map((task) =>
      new CfnGuardValidator({ controlTowerRulesEnabled: false, rules: task.rules, maxBuffer: MAX_BUFFER }).validate({
        templatePaths: task.templatePaths,
      } as IPolicyValidationContextBeta1),
    );
  }
  // The costliest first, each to the thread with the least work so far.
  const shares = Array.from({ length: threads }, () => ({
    cost: 0,
    tasks: [] as { index: number; rules: string[]; templatePaths: string[] }[],
  }));
  const order = tasks.map((task, index) => ({ ...task, index })).sort((a, b) => b.cost - a.cost);
  for (const { index, rules, templatePaths, cost } of order) {
    const share = shares.reduce((least, candidate) => (candidate.cost < least.cost ? candidate : least));
    share.cost += cost;
    share.tasks.push({ index, rules, templatePaths });
  }
  const done = new Int32Array(new SharedArrayBuffer(4));
  const plugin = createRequire(import.meta.url).resolve('@cdklabs/cdk-validator-cfnguard');
  const ports = shares.map((share) => {
    const { port1, port2 } = new MessageChannel();
    const workerData = { port: port2, done, plugin, tasks: share.tasks, maxBuffer: MAX_BUFFER };
    new Worker(GUARD_WORKER, { eval: true, workerData, transferList: [port2] }).unref();
    return port1;
  });
  const deadline = Date.now() + 10 * 60_000;
  for (let finished = Atomics.load(done, 0); finished < tasks.length; finished = Atomics.load(done, 0)) {
    if (Date.now() > deadline) throw new Error('cfn-guard: no answer from its worker threads in 10 minutes');
    Atomics.wait(done, 0, finished, 1_000);
  }
  const reports: PolicyValidationPluginReportBeta1[] = [];
  for (const port of ports) {
    for (let message = receiveMessageOnPort(port); message; message = receiveMessageOnPort(port)) {
      const { index, report, error } = message.message as {
        index: number;
        report?: PolicyValidationPluginReportBeta1;
        error?: string;
      };
      if (error) throw new Error(`cfn-guard: ${error}`);
      reports[index] = report!;
    }
    port.close();
  }
  return reports;
}

/** The template with the resources of `types` and, for each resource they name, a stub with its type alone. */
function cutDown(template: CfnTemplate, types: ReadonlySet<string>): CfnTemplate {
  const resources = template.Resources ?? {};
  const kept = Object.entries(resources).filter(([, resource]) => types.has(resource.Type));
  const named = referencedIds(kept.map(([, resource]) => resource));
  const stubs = [...named]
    .filter((id) => resources[id] && !types.has(resources[id].Type))
    .map((id) => [id, { Type: resources[id]!.Type }]);
  return { ...template, Resources: Object.fromEntries([...kept, ...stubs]) };
}

/** The logical ids a value names: Ref, Fn::GetAtt, Fn::Sub's `${Id}` and DependsOn. */
function referencedIds(value: unknown, ids = new Set<string>()): Set<string> {
  if (Array.isArray(value)) {
    for (const item of value) referencedIds(item, ids);
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key === 'Ref' && typeof item === 'string') ids.add(item);
      if (key === 'DependsOn') for (const id of [item].flat()) if (typeof id === 'string') ids.add(id);
      if (key === 'Fn::GetAtt') {
        const target = Array.isArray(item) ? item[0] : typeof item === 'string' ? item.split('.')[0] : undefined;
        if (typeof target === 'string') ids.add(target);
      }
      if (key === 'Fn::Sub') {
        const text = Array.isArray(item) ? item[0] : item;
        if (typeof text === 'string') for (const [, id] of text.matchAll(/\$\{([^}.!]+)[}.]/g)) ids.add(id!);
      }
      referencedIds(item, ids);
    }
  }
  return ids;
}

/** The nested stacks' templates, next to the top-level ones in the cloud assembly. */
function nestedTemplatePaths(context: IPolicyValidationContext): string[] {
  if (context.templatePaths.length === 0) return [];
  const outdir = dirname(context.templatePaths[0]!);
  return context.appConstruct.node
    .findAll()
    .filter((construct): construct is NestedStack => NestedStack.isNestedStack(construct))
    .map((nested) => {
      const path = join(outdir, nested.templateFile);
      if (!existsSync(path)) throw new Error(`${nested.node.path}: no template at ${path}`);
      return path;
    });
}

/**
 * The plugin (0.0.62) also reports, for a rule that checks a list (CT.KMS.PR.3: the key policy's statements), an
 * entry without a resource next to the resources of the same template it names; only those entries are dropped,
 * never a violation's only trace in a template.
 */
function withoutUnnamedResources(violations: PolicyViolation[]): PolicyViolation[] {
  const named = new Set(
    violations.flatMap((violation) =>
      violation.violatingResources
        .filter((resource) => resource.resourceLogicalId)
        .map((resource) => `${violation.ruleName} ${resource.templatePath}`),
    ),
  );
  return violations.flatMap((violation) => {
    const kept = violation.violatingResources.filter(
      (resource) => resource.resourceLogicalId || !named.has(`${violation.ruleName} ${resource.templatePath}`),
    );
    if (kept.length === violation.violatingResources.length) return [violation];
    return kept.length > 0 ? [{ ...violation, violatingResources: kept }] : [];
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Wiring and the documentation

/**
 * With `-c validate=controltower`: adds the plugin to `app` and acknowledges CONTROL_TOWER_EXCEPTIONS, each on its
 * scope (default: the whole app). Without it, nothing: the normal synth neither runs nor fails on these controls.
 */
export function addControlTowerChecks(app: App): void {
  const value = app.node.tryGetContext(CONTROL_TOWER_CONTEXT.key);
  if (value === undefined || value === '') return;
  if (value !== CONTROL_TOWER_CONTEXT.value) {
    throw new Error(`-c ${CONTROL_TOWER_CONTEXT.key}=${value}: the only check is ${CONTROL_TOWER_CONTEXT.value}`);
  }
  Validations.of(app).addPlugins(new ControlTowerChecks());
  for (const exception of CONTROL_TOWER_EXCEPTIONS) {
    const id = `${CONTROL_TOWER_PLUGIN}::${guardRule(exception.control).rule}`;
    const reason = `${exception.control}: ${exception.reason}`;
    for (const scope of exception.scope?.(app) ?? [app]) Validations.of(scope).acknowledge({ id, reason });
  }
}

/** The table of docs/deployment.md (AWS Control Tower proactive controls), one row per exception. */
export function controlTowerReadmeTable(): string {
  const rows = CONTROL_TOWER_EXCEPTIONS.map((exception) => {
    const rule = guardRule(exception.control);
    const cells = [
      `${exception.control}`,
      `\`${rule.rule}\``,
      rule.title,
      `${exception.resources}. ${exception.reason}`,
      exception.operator,
    ];
    return `| ${cells.map((cell) => cell.replaceAll('|', '\\|')).join(' | ')} |`;
  });
  return [
    '| Control | Rule | Requires | Not met because | In a governed account |',
    '|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}
