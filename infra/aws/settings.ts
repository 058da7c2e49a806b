import * as v from 'valibot';
import { SETTINGS, type SettingDeclaration, type SettingName } from '#shared/config/settings';
import type { FunctionRow } from './functions.ts';

/** The values given for one deployment, by setting; the rest take their defaults. */
export type GivenSettings = Partial<Record<SettingName, string>>;

const declared = Object.entries(SETTINGS) as [SettingName, SettingDeclaration][];

/** `MESSAGE_SEND_RATE_LIMIT` → `messageSendRateLimit`: the context option that gives a setting on AWS. */
export const settingContext = (name: SettingName): string =>
  name.toLowerCase().replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());

/** Fails with every invalid value at once, each named by its context option. */
export function validateSettings(given: GivenSettings): GivenSettings {
  const problems = declared.flatMap(([name, setting]) => {
    const value = given[name];
    if (value === undefined) return [];
    const result = v.safeParse(setting.schema, value);
    return result.success
      ? []
      : [`-c ${settingContext(name)}=${JSON.stringify(value)}: ${name} ${result.issues[0].message}`];
  });
  if (problems.length > 0) throw new Error(`invalid settings: ${problems.join('; ')}`);
  return given;
}

/**
 * The settings a deployment is given: `-c <setting in camelCase>=…` for each declared setting (and the variable in
 * cdk's own environment for a setting that allows it), validated with the runtime's own schema.
 */
export function contextSettings(
  context: (key: string) => unknown,
  environment: Record<string, string | undefined> = process.env,
): GivenSettings {
  const given: GivenSettings = {};
  for (const [name, setting] of declared) {
    const value = context(settingContext(name)) ?? (setting.fromCdkEnvironment ? environment[name] : undefined);
    if (value !== undefined && value !== '') given[name] = String(value);
  }
  return validateSettings(given);
}

/**
 * The declared settings that `env` gives, as the context options that would give them on AWS: how `npm run start:cdk`
 * passes the settings of its environment to its synth.
 */
export function settingsAsContext(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(
    declared.filter(([name]) => env[name] !== undefined).map(([name]) => [settingContext(name), env[name]!]),
  );
}

/**
 * The environment a function receives from the settings: each setting its row lists (and, behind an authenticated
 * route, each setting every token verifier reads) with its given value, or its default where the setting is stated.
 */
export function settingsEnvironment(
  row: FunctionRow,
  verifiesTokens: boolean,
  given: GivenSettings,
): Record<string, string> {
  const names = new Set<SettingName>([
    ...(row.settings ?? []),
    ...(verifiesTokens ? declared.filter(([, setting]) => setting.tokenVerifiers).map(([name]) => name) : []),
  ]);
  const environment: Record<string, string> = {};
  for (const name of names) {
    const value = given[name] ?? ((SETTINGS[name] as SettingDeclaration).stated ? defaultOf(name) : undefined);
    if (value !== undefined) environment[name] = value;
  }
  return environment;
}

/** A setting's default, as the runtime applies it when the variable is absent. */
export function defaultOf(name: SettingName): string {
  return String(v.getDefault(SETTINGS[name].schema as v.OptionalSchema<v.StringSchema<undefined>, string>));
}
