import { Match, type Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { buildApp } from '#infra/aws/build-app';
import { FUNCTIONS } from '#infra/aws/functions';
import { contextSettings, defaultOf, settingContext, settingsAsContext } from '#infra/aws/settings';
import type { ServiceStack } from '#infra/aws/stacks/service-stack';
import { SETTINGS, type SettingName } from '#shared/config/settings';
import { ROUTES } from '#shared/routes/index';
import { flatTemplate, type Json, logicalId, testApp } from './support.ts';

/** The functions behind an authenticated route: they verify tokens and count quotas (shared/http). */
const TOKEN_VERIFIERS = new Set(ROUTES.filter((route) => route.auth !== 'public').map((route) => route.fn));

function synthesize(context: Record<string, string> = {}) {
  const stack = buildApp(testApp(context), 'dev');
  return { stack, template: flatTemplate(stack) };
}

/** The functions whose environment holds `name`, by their `functions/` folder. */
function holders(stack: ServiceStack, template: Template, name: string): Map<string, unknown> {
  const resources = template.toJSON().Resources as Record<string, Json>;
  return new Map(
    [...stack.functions]
      .map(([fn, appFunction]) => [fn, resources[logicalId(appFunction.fn)]!.Properties.Environment.Variables[name]])
      .filter(([, value]) => value !== undefined) as [string, unknown][],
  );
}

/** The functions a setting is declared to reach: the rows that list it, and every token verifier where it says so. */
function reach(name: SettingName): string[] {
  const listed = Object.keys(FUNCTIONS).filter((fn) => FUNCTIONS[fn]!.settings?.includes(name));
  const verifiers = 'tokenVerifiers' in SETTINGS[name] ? [...TOKEN_VERIFIERS] : [];
  return [...new Set([...listed, ...verifiers])].sort();
}

describe('settings: declared once, each reaching the functions that read it', () => {
  it('gives every setting a context option named after it', () => {
    expect(settingContext('MESSAGE_SEND_RATE_LIMIT')).toBe('messageSendRateLimit');
    expect(settingContext('REPORT_RETENTION_SECONDS')).toBe('reportRetentionSeconds');
    expect(settingContext('CONSOLE_FRAME_ANCESTORS')).toBe('consoleFrameAncestors');
    // Every setting reaches at least one function, and a row names only declared settings.
    for (const name of Object.keys(SETTINGS) as SettingName[]) expect(reach(name), name).not.toEqual([]);
    for (const [fn, row] of Object.entries(FUNCTIONS)) {
      for (const name of row.settings ?? []) expect(name in SETTINGS, `${fn}: ${name}`).toBe(true);
    }
  });

  it('writes a stated setting at its default where no value is given, and no other setting', () => {
    const { stack, template } = synthesize();

    for (const name of Object.keys(SETTINGS) as SettingName[]) {
      const expected = 'stated' in SETTINGS[name] ? reach(name).map((fn) => [fn, defaultOf(name)]) : [];
      expect([...holders(stack, template, name)].sort(), name).toEqual(expected);
    }
  });

  it('writes every given setting into exactly the functions that read it, from `-c <setting in camelCase>`', () => {
    const given: Record<SettingName, string> = {
      TOKEN_TTL_SECONDS: '900',
      GROUP_CREATE_RATE_LIMIT: '5/60',
      MESSAGE_SEND_RATE_LIMIT: '100/60',
      ORG_REQUEST_RATE_LIMIT: '600/60',
      NETWORK_CALL_RATE_LIMIT: '60/60',
      WEBHOOK_REDELIVER_RATE_LIMIT: '10/3600',
      GROUP_CONFIRMATION_TIMEOUT_SECONDS: '300',
      GROUP_RECONCILE_SETTLE_SECONDS: '20',
      NETWORK_RETRY_BASE_SECONDS: '2',
      REPORT_WINDOW_SECONDS: '60',
      REPORT_PROCESSING_TIMEOUT_SECONDS: '600',
      REPORT_RETENTION_SECONDS: '86400',
      EVENT_RETENTION_SECONDS: '604800',
      REPORT_DOWNLOAD_URL_TTL_SECONDS: '600',
      WEBHOOK_RETRY_SCHEDULE_SECONDS: '5,60,600',
      WEBHOOK_SUBSCRIPTION_LIMIT: '50',
      REPORT_SCHEDULE_LIMIT: '5',
      CONSOLE_FRAME_ANCESTORS: 'https://intranet.example.com https://crm.example.com:8443',
    };
    const context = Object.fromEntries(
      Object.entries(given).map(([name, value]) => [settingContext(name as SettingName), value]),
    );

    const { stack, template } = synthesize(context);

    for (const [name, value] of Object.entries(given) as [SettingName, string][]) {
      expect([...holders(stack, template, name)].sort(), name).toEqual(reach(name).map((fn) => [fn, value]));
    }
    // The retention is also the reports bucket's lifecycle rule: a day on top, rounded up to days.
    template.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: { Rules: Match.arrayWith([Match.objectLike({ ExpirationInDays: 2 })]) },
    });
  });

  it('frames the console only for the origins the operator gives (-c consoleFrameAncestors), validated', () => {
    const { stack, template } = synthesize({ consoleFrameAncestors: 'https://intranet.example.com' });

    expect(Object.fromEntries(holders(stack, template, 'CONSOLE_FRAME_ANCESTORS'))).toEqual({
      'get-console': 'https://intranet.example.com',
    });
    expect(() => synthesize({ consoleFrameAncestors: 'http://intranet.example.com' })).toThrow(
      /-c consoleFrameAncestors="http:\/\/intranet.example.com": CONSOLE_FRAME_ANCESTORS must list https:\/\/ origins/,
    );
  });

  it('refuses every invalid value at once, each named by its option and validated as the functions validate it', () => {
    const attempt = () =>
      synthesize({ messageSendRateLimit: '600', webhookSubscriptionLimit: '0', tokenTtlSeconds: '30' });

    expect(attempt).toThrow(
      /-c messageSendRateLimit="600": MESSAGE_SEND_RATE_LIMIT must look like <requests>\/<seconds>/,
    );
    expect(attempt).toThrow(/-c webhookSubscriptionLimit="0": WEBHOOK_SUBSCRIPTION_LIMIT must be at least 1/);
    expect(attempt).toThrow(/-c tokenTtlSeconds="30": TOKEN_TTL_SECONDS must be at least 60/);
  });

  it('turns the settings of an environment into the options that give them (how start:cdk synthesizes)', () => {
    const env = {
      MESSAGE_SEND_RATE_LIMIT: '5/60',
      REPORT_RETENTION_SECONDS: '3600',
      PORT: '0',
      WHATSAPP_GRAPH_URL: 'x',
    };

    expect(settingsAsContext(env)).toEqual({ messageSendRateLimit: '5/60', reportRetentionSeconds: '3600' });
    expect(contextSettings((key) => settingsAsContext(env)[key], {})).toEqual({
      MESSAGE_SEND_RATE_LIMIT: '5/60',
      REPORT_RETENTION_SECONDS: '3600',
    });
  });

  it("takes the report retention from cdk's environment when no option gives it, and no other setting", () => {
    const environment = { REPORT_RETENTION_SECONDS: '172800', MESSAGE_SEND_RATE_LIMIT: '1/60' };

    expect(contextSettings(() => undefined, environment)).toEqual({ REPORT_RETENTION_SECONDS: '172800' });
    expect(contextSettings((key) => (key === 'reportRetentionSeconds' ? 3600 : undefined), environment)).toEqual({
      REPORT_RETENTION_SECONDS: '3600',
    });
  });
});
