import * as v from 'valibot';

/** A variable's schema: the raw value (a string, or absent) in, its validated form out, with the default for absent. */
export type VariableSchema = v.GenericSchema<string | undefined, unknown>;

export const int = (fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
  v.pipe(
    v.optional(v.string(), String(fallback)),
    v.regex(/^\d+$/, 'must be a non-negative integer'),
    v.transform(Number),
    v.minValue(min, `must be at least ${min}`),
    v.maxValue(max, `must be at most ${max}`),
  );

export const rateLimit = (fallback: string) =>
  v.pipe(
    v.optional(v.string(), fallback),
    v.regex(/^[1-9]\d*\/[1-9]\d*$/, 'must look like <requests>/<seconds>, e.g. 30/60'),
    v.transform((value) => {
      const [limit, windowSeconds] = value.split('/').map(Number) as [number, number];
      return { limit, windowSeconds };
    }),
  );

const retrySchedule = v.pipe(
  v.optional(v.string(), '5,300,1800,7200,18000,36000,36000'),
  v.regex(/^\d+(,\d+)*$/, 'must be comma-separated seconds, e.g. 5,300,1800'),
  v.transform((value) => value.split(',').map(Number)),
);

const origins = v.optional(
  v.pipe(
    v.string(),
    v.regex(/^\s*(https:\/\/[A-Za-z0-9.-]+(:\d{1,5})?\s*)*$/, 'must list https:// origins, separated by spaces'),
  ),
  '',
);

/**
 * A setting of the service: what an operator may tune per deployment, declared once. Its name is the variable the
 * functions read (shared/config/env.ts validates it at every cold start with `schema`, whose default applies when it
 * is absent); on AWS it is the context option of the same name in camelCase (`-c messageSendRateLimit=…`,
 * infra/aws/settings.ts), validated at synth with the same schema; `npm run start:cdk` passes the variable from its
 * own environment the same way. Which functions receive it: the rows of infra/aws/functions.ts that list it, and
 * with `tokenVerifiers` every function that serves an authenticated route.
 */
export interface SettingDeclaration {
  schema: VariableSchema;
  /** Written into the template even when not given (then with its default), as the contract's per-function limits are. */
  stated?: true;
  /** Read by every function behind an authenticated route (shared/http verifies its token and counts its quotas). */
  tokenVerifiers?: true;
  /** `cdk` also takes it from the variable in its own environment when no `-c` option gives it. */
  fromCdkEnvironment?: true;
}

export const SETTINGS = {
  TOKEN_TTL_SECONDS: { schema: int(3600, 60), tokenVerifiers: true },
  GROUP_CREATE_RATE_LIMIT: { schema: rateLimit('30/60') },
  /** Messages (send-message, and each invitation) per organisation (CONTRACT §13). */
  MESSAGE_SEND_RATE_LIMIT: { schema: rateLimit('600/60'), stated: true },
  /** Authenticated requests per organisation, every route (CONTRACT §18). */
  ORG_REQUEST_RATE_LIMIT: { schema: rateLimit('1200/60'), tokenVerifiers: true },
  /** Requests per organisation that call Meta (group update and delete, invite links, join requests, participants). */
  NETWORK_CALL_RATE_LIMIT: { schema: rateLimit('120/60'), tokenVerifiers: true },
  /** Webhook redeliveries per organisation (CONTRACT §18). */
  WEBHOOK_REDELIVER_RATE_LIMIT: { schema: rateLimit('60/3600') },
  GROUP_CONFIRMATION_TIMEOUT_SECONDS: { schema: int(600, 1) },
  /** After an ambiguous create call, how long to wait before listing the number's groups (Meta creates asynchronously). */
  GROUP_RECONCILE_SETTLE_SECONDS: { schema: int(30) },
  /** First backoff of a retried network call; doubles per attempt, capped at 15 minutes, ±20 % jitter. */
  NETWORK_RETRY_BASE_SECONDS: { schema: int(5, 1) },
  REPORT_WINDOW_SECONDS: { schema: int(300) },
  REPORT_PROCESSING_TIMEOUT_SECONDS: { schema: int(900, 1) },
  /** Also the reports bucket's lifecycle rule (infra/aws/constructs/data-store.ts). */
  REPORT_RETENTION_SECONDS: { schema: int(604800, 1), stated: true, fromCdkEnvironment: true },
  /** How long the event feed keeps an event, and how long an iterator stays valid (CONTRACT §20). */
  EVENT_RETENTION_SECONDS: { schema: int(2592000, 1) },
  /**
   * A pre-signed URL stops working when the temporary credentials that signed it (the function's role session)
   * expire, whatever its own expiry says. One hour, the default role session length, is the most the service
   * promises; a longer lifetime is refused rather than promised and then broken.
   */
  REPORT_DOWNLOAD_URL_TTL_SECONDS: { schema: int(900, 1, 3600) },
  WEBHOOK_RETRY_SCHEDULE_SECONDS: { schema: retrySchedule },
  /** Subscriptions per organisation (CONTRACT §13). */
  WEBHOOK_SUBSCRIPTION_LIMIT: { schema: int(20, 1, 1000), stated: true },
  /** Report schedules per organisation (CONTRACT §23). */
  REPORT_SCHEDULE_LIMIT: { schema: int(20, 1, 1000), stated: true },
  /** Origins allowed to frame the console (CONTRACT §24), space-separated, e.g. `https://intranet.example.com`. */
  CONSOLE_FRAME_ANCESTORS: { schema: origins },
} satisfies Record<string, SettingDeclaration>;

export type SettingName = keyof typeof SETTINGS;

/** The setting's schemas by name, as env.ts validates them. */
export type SettingSchemas = { [Name in SettingName]: (typeof SETTINGS)[Name]['schema'] };

export function settingSchemas(): SettingSchemas {
  return Object.fromEntries(
    Object.entries(SETTINGS).map(([name, setting]) => [name, setting.schema]),
  ) as unknown as SettingSchemas;
}
