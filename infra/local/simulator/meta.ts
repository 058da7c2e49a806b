import { randomBytes, randomInt } from 'node:crypto';

/** Titles of the codes the simulator answers with (WHATSAPP-GROUPS §1.4 and Meta's Graph/Cloud API codes). */
export const ERROR_TITLES: Record<number, string> = {
  2: 'Service temporarily unavailable',
  100: 'Invalid parameter',
  190: 'Invalid OAuth access token - Cannot parse access token',
  130429: 'Rate limit hit',
  130501: 'Message type is not supported',
  131020: 'Bad Group',
  131056: '(Business Account, Consumer Account) pair rate limit hit',
  131041: 'Group unknown',
  131059: 'Invalid cursor',
  131201: 'Not All Participants Remove Succeeded',
  131202: 'Duplicate participant',
  131204: 'Participant overlimit',
  131207: 'Group suspended',
  131208: 'Group Rate Limit Hit',
  131211: 'Group create limit reached',
  131212: 'Participant not part of the group',
  131213: 'Group join request does not exist',
  131214: 'Group creation temporarily disabled',
  131215: 'Number not eligible for Groups APIs',
  132001: 'Template name does not exist in the translation',
};

export const titleOf = (code: number) => ERROR_TITLES[code] ?? 'Unknown error';

/** A Graph error answer: thrown by a route, written by the dispatcher in Meta's envelope. */
export class GraphFailure extends Error {
  readonly headers: Record<string, string>;
  readonly details: string | undefined;

  constructor(
    readonly status: number,
    readonly code: number,
    options: { details?: string; message?: string; headers?: Record<string, string> } = {},
  ) {
    super(options.message ?? `(#${code}) ${titleOf(code)}`);
    this.details = options.details;
    this.headers = options.headers ?? {};
  }

  get body() {
    return {
      error: {
        message: this.message,
        type: 'OAuthException',
        code: this.code,
        ...(this.details ? { error_data: { messaging_product: 'whatsapp', details: this.details } } : {}),
        ...(this.code === 2 ? { is_transient: true } : {}),
        fbtrace_id: `A${randomBytes(12).toString('base64url')}`,
      },
    };
  }
}

/** The error object inside webhook payloads and per-item results. */
export const webhookError = (code: number, details?: string, message?: string) => ({
  code,
  title: titleOf(code),
  message: message ?? titleOf(code),
  error_data: { details: details ?? message ?? titleOf(code) },
});

/** Unix seconds as a string, as Meta's notifications carry them. */
export const unixNow = () => String(Math.floor(Date.now() / 1000));

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const randomDigits = (length: number) => Array.from({ length }, () => randomInt(10)).join('');
const randomAlphanumeric = (length: number) => Array.from({ length }, () => ALPHANUMERIC[randomInt(62)]).join('');

export const ids = {
  /** Base64 of `capi_group:<19 digits>` like Meta's `Y2FwaV9ncm91cDox…`; 30 bytes, so no `=`, `+` or `/`. */
  group: () => Buffer.from(`capi_group:${randomDigits(19)}`).toString('base64'),
  request: () => randomBytes(16).toString('hex'),
  joinRequest: () => randomDigits(16),
  message: () => `wamid.HBgL${randomBytes(30).toString('base64url')}`,
  inviteLink: () => `https://chat.whatsapp.com/${randomAlphanumeric(22)}`,
};

/** Meta's notification envelope around one change. */
export function envelope(
  wabaId: string,
  metadata: { display_phone_number: string; phone_number_id: string },
  field: string,
  value: Record<string, unknown>,
) {
  return {
    object: 'whatsapp_business_account',
    entry: [{ id: wabaId, changes: [{ value: { messaging_product: 'whatsapp', metadata, ...value }, field }] }],
  };
}
