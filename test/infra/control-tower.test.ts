import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type App, NestedStack, Stack } from 'aws-cdk-lib';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '#infra/aws/build-app';
import { CONCERNS } from '#infra/aws/concerns';
import { REPO_ROOT } from '#infra/aws/constructs/app-function';
import {
  addControlTowerChecks,
  CONTROL_TOWER_EXCEPTIONS,
  CONTROL_TOWER_PLUGIN,
  controlTowerReadmeTable,
  guardRule,
} from '#infra/aws/control-tower';
import { ALARM_TEST_CONTEXT, EDGE_OWNERSHIP_TEST_CONTEXT, EDGE_TEST_CONTEXT, testApp } from './support.ts';

/**
 * Every documented stage and option (docs/deployment.md). The optional settings only add to the templates (a property,
 * an alarm, subscriptions), so prod carries them all: whatever they break shows there.
 */
const CONFIGURATIONS = [
  { name: 'dev', stage: 'dev', context: {} },
  { name: 'dev with the edge', stage: 'dev', context: EDGE_TEST_CONTEXT },
  {
    name: 'prod with the edge and every option',
    stage: 'prod',
    context: { ...EDGE_TEST_CONTEXT, ...EDGE_OWNERSHIP_TEST_CONTEXT, ...ALARM_TEST_CONTEXT },
  },
] as const;

interface ReportedViolation {
  ruleName: string;
  acknowledgedId?: string;
  violatingConstructs: {
    constructPath?: string;
    cloudFormationResource?: { templatePath: string; logicalId: string };
  }[];
}
interface PluginReport {
  pluginName: string;
  conclusion: string;
  violations: ReportedViolation[];
  suppressedViolations?: ReportedViolation[];
}

/** Synthesizes `app` as `cdk synth` does, and returns the Control Tower plugin's report (cdk.out/validation-report.json). */
function controlTowerReport(app: App): PluginReport {
  try {
    app.synth();
  } catch (error) {
    // An unacknowledged violation fails the synth; the message is the report.
    expect.fail(String(error));
  }
  const report = JSON.parse(readFileSync(join(app.outdir, 'validation-report.json'), 'utf8')) as {
    pluginReports: PluginReport[];
  };
  const plugin = report.pluginReports.find((candidate) => candidate.pluginName === CONTROL_TOWER_PLUGIN);
  if (!plugin) throw new Error(`${CONTROL_TOWER_PLUGIN} did not run`);
  return plugin;
}

describe('AWS Control Tower proactive controls (docs/deployment.md, CONTRACT §22)', () => {
  const checked = new Map<string, { app: App; report: PluginReport }>();

  beforeAll(() => {
    for (const configuration of CONFIGURATIONS) {
      const app = testApp({ ...configuration.context, validate: 'controltower' });
      buildApp(app, configuration.stage);
      checked.set(configuration.name, { app, report: controlTowerReport(app) });
    }
  });

  it.each(CONFIGURATIONS)('finds no violation beyond the acknowledged controls in $name', ({ name }) => {
    const { report } = checked.get(name)!;
    expect(report.violations.map((violation) => violation.ruleName)).toEqual([]);
    expect(report.conclusion).toBe('success');
  });

  it.each(CONFIGURATIONS)('checks the nested stacks’ templates of $name too', ({ name }) => {
    const { app, report } = checked.get(name)!;
    const nested = app.node
      .findAll()
      .filter((construct): construct is NestedStack => NestedStack.isNestedStack(construct))
      .map((stack) => stack.templateFile);
    expect(nested).toHaveLength(Object.keys(CONCERNS).length);
    const checkedTemplates = new Set(
      (report.suppressedViolations ?? []).flatMap((violation) =>
        violation.violatingConstructs.map((construct) => construct.cloudFormationResource?.templatePath),
      ),
    );
    // Every nested stack has functions (CT.LAMBDA.PR.3), so each template shows up in the report.
    for (const template of nested) expect(checkedTemplates, template).toContain(template);
  });

  it('acknowledges only controls that some configuration still does not meet', () => {
    const suppressed = new Set(
      [...checked.values()].flatMap(({ report }) =>
        (report.suppressedViolations ?? []).map((violation) => violation.ruleName),
      ),
    );
    const stale = CONTROL_TOWER_EXCEPTIONS.filter((exception) => !suppressed.has(guardRule(exception.control).rule));
    // A control met again: remove its entry from CONTROL_TOWER_EXCEPTIONS (infra/aws/control-tower.ts) and
    // docs/deployment.md.
    expect(stale.map((exception) => exception.control)).toEqual([]);
  });

  it('acknowledges a scoped control on its resources only', () => {
    const scoped = CONTROL_TOWER_EXCEPTIONS.filter((exception) => exception.scope);
    expect(scoped.length, 'scoped exceptions (the reports bucket’s)').toBeGreaterThan(0);
    for (const { app, report } of checked.values()) {
      for (const exception of scoped) {
        const paths = exception.scope!(app).map((construct) => construct.node.path);
        const rule = guardRule(exception.control).rule;
        for (const violation of report.suppressedViolations ?? []) {
          if (violation.ruleName !== rule) continue;
          for (const construct of violation.violatingConstructs) {
            expect(
              paths.some((path) => construct.constructPath?.startsWith(`${path}/`)),
              `${exception.control}: ${construct.constructPath}`,
            ).toBe(true);
          }
        }
      }
    }
  });

  it('is the table of docs/deployment.md', () => {
    const page = readFileSync(`${REPO_ROOT}docs/deployment.md`, 'utf8');
    const section = /^## AWS Control Tower proactive controls\n([\s\S]*?)(?=^#{1,2} |(?![\s\S]))/m.exec(page)?.[1];
    expect(section, 'docs/deployment.md → AWS Control Tower proactive controls').toBeDefined();
    expect(section).toContain(controlTowerReadmeTable());
  });
});

describe('-c validate=controltower', () => {
  /** A stack with a bucket that breaks several controls (no versioning, logging, KMS, object lock, notifications). */
  function appWithBucket(context: Record<string, string>): App {
    const app = testApp(context);
    new Bucket(new Stack(app, 'Plain'), 'Bucket');
    addControlTowerChecks(app);
    return app;
  }

  it('leaves the normal synth alone', () => {
    expect(() => appWithBucket({}).synth()).not.toThrow();
  });

  it('fails the synth on a violation nobody acknowledged, naming the control', () => {
    expect(() => appWithBucket({ validate: 'controltower' }).synth()).toThrow(/CT\.S3\.PR\.11/);
  });

  it('refuses another value', () => {
    expect(() => appWithBucket({ validate: 'controlTower' })).toThrow(/the only check is controltower/);
  });
});
