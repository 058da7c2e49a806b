import { createHash } from 'node:crypto';
import type { AssumeRoleRequest, SessionTag } from './iam/sts-service.ts';

/** An STS error as the Query protocol carries it (`<ErrorResponse><Error><Code>`), with its HTTP status. */
export class StsError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

/** AWS's bounds on `DurationSeconds` (STS API Reference, AssumeRole). */
export const MIN_SESSION_SECONDS = 900;
export const DEFAULT_SESSION_SECONDS = 3600;
/** A session assumed with another assumed-role session's credentials (role chaining) lasts one hour at most. */
export const MAX_CHAINED_SESSION_SECONDS = 3600;
const MAX_TAGS = 50;
const SESSION_NAME = /^[\w+=,.@-]{2,64}$/;
/** Tag keys and values (IAM User Guide, "Tagging IAM resources": letters, digits, spaces and `_.:/=+-@`). */
const TAG_KEY = /^[\p{L}\p{Z}\p{N}_.:/=+\-@]{1,128}$/u;
const TAG_VALUE = /^[\p{L}\p{Z}\p{N}_.:/=+\-@]{0,256}$/u;

/** The caller's session as role chaining sees it. */
export interface ChainSource {
  /** Present when the caller is itself a session made by AssumeRole. */
  transitiveTags?: Readonly<Record<string, string>>;
  chained?: boolean;
}

/** What a new session is: its tags (incoming transitive ones first), which are transitive, and how long it lasts. */
export interface SessionTerms {
  tags: Record<string, string>;
  transitiveTags: Record<string, string>;
  durationSeconds: number;
}

/**
 * Checks an AssumeRole request as STS does after IAM allowed it, and returns the session's terms:
 * - the session name matches `[\w+=,.@-]{2,64}`;
 * - `DurationSeconds` is 900 s or more and at most the role's `MaxSessionDuration` (one hour when the caller is
 *   itself an assumed-role session: role chaining);
 * - at most 50 tags, keys up to 128 and values up to 256 characters of the allowed set, no key twice (keys are
 *   case-insensitive), transitive keys among the tags, and no tag key equal to one of the caller's incoming
 *   transitive tags (IAM User Guide, "Chaining roles with session tags").
 */
export function sessionTerms(
  request: AssumeRoleRequest,
  role: { maxSessionDuration: number },
  caller: ChainSource,
): SessionTerms {
  if (!SESSION_NAME.test(request.roleSessionName)) {
    throw validation(`roleSessionName '${request.roleSessionName}' must satisfy [\\w+=,.@-]{2,64}`);
  }
  const durationSeconds = request.durationSeconds ?? DEFAULT_SESSION_SECONDS;
  const max = caller.chained ? Math.min(MAX_CHAINED_SESSION_SECONDS, role.maxSessionDuration) : role.maxSessionDuration;
  if (durationSeconds < MIN_SESSION_SECONDS) {
    throw validation(`durationSeconds '${durationSeconds}' must be greater than or equal to ${MIN_SESSION_SECONDS}`);
  }
  if (durationSeconds > max) {
    throw validation(
      caller.chained
        ? 'The requested DurationSeconds exceeds the 1 hour session limit for roles assumed by role chaining.'
        : 'The requested DurationSeconds exceeds the MaxSessionDuration set for this role.',
    );
  }
  return { ...tagsOf(request.tags, request.transitiveTagKeys, caller.transitiveTags ?? {}), durationSeconds };
}

function tagsOf(tags: readonly SessionTag[], transitiveKeys: readonly string[], incoming: Record<string, string>) {
  if (tags.length > MAX_TAGS) throw validation(`Tags must have at most ${MAX_TAGS} members`);
  const own: Record<string, string> = {};
  const seen = new Set(Object.keys(incoming).map((key) => key.toLowerCase()));
  for (const { key, value } of tags) {
    if (!TAG_KEY.test(key) || !TAG_VALUE.test(value)) throw validation(`the session tag ${key} is not a valid tag`);
    if (seen.has(key.toLowerCase())) {
      throw new StsError('InvalidParameterValue', `Duplicate tag key ${key}, or a key of an incoming transitive tag`);
    }
    seen.add(key.toLowerCase());
    own[key] = value;
  }
  const transitiveTags = { ...incoming };
  for (const key of transitiveKeys) {
    const tag = Object.keys(own).find((name) => name.toLowerCase() === key.toLowerCase());
    if (tag === undefined)
      throw new StsError('InvalidParameterValue', `Transitive tag key ${key} is not a session tag`);
    transitiveTags[tag] = own[tag]!;
  }
  return { tags: { ...incoming, ...own }, transitiveTags };
}

const validation = (message: string) => new StsError('ValidationError', message);

/** A role's unique id (`AROA…`, 21 characters), stable for its name: the first half of `aws:userid`. */
export function roleUniqueId(roleArn: string): string {
  const digest = createHash('sha256').update(roleArn).digest();
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  return `AROA${[...digest.subarray(0, 17)].map((byte) => alphabet[byte % 32]).join('')}`;
}

/** The `AssumeRole` answer in the Query protocol's XML. */
export function assumeRoleResponse(result: {
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken: string };
  expiration: Date;
  arn: string;
  assumedRoleId: string;
  requestId: string;
}): string {
  const { credentials } = result;
  return [
    '<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">',
    '<AssumeRoleResult>',
    '<Credentials>',
    `<AccessKeyId>${escapeXml(credentials.accessKeyId)}</AccessKeyId>`,
    `<SecretAccessKey>${escapeXml(credentials.secretAccessKey)}</SecretAccessKey>`,
    `<SessionToken>${escapeXml(credentials.sessionToken)}</SessionToken>`,
    `<Expiration>${result.expiration.toISOString()}</Expiration>`,
    '</Credentials>',
    '<AssumedRoleUser>',
    `<AssumedRoleId>${escapeXml(result.assumedRoleId)}</AssumedRoleId>`,
    `<Arn>${escapeXml(result.arn)}</Arn>`,
    '</AssumedRoleUser>',
    '</AssumeRoleResult>',
    `<ResponseMetadata><RequestId>${result.requestId}</RequestId></ResponseMetadata>`,
    '</AssumeRoleResponse>',
  ].join('');
}

/** `GetCallerIdentity`'s answer. */
export function callerIdentityResponse(identity: { arn: string; userId: string; account: string; requestId: string }) {
  return [
    '<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">',
    '<GetCallerIdentityResult>',
    `<Arn>${escapeXml(identity.arn)}</Arn>`,
    `<UserId>${escapeXml(identity.userId)}</UserId>`,
    `<Account>${identity.account}</Account>`,
    '</GetCallerIdentityResult>',
    `<ResponseMetadata><RequestId>${identity.requestId}</RequestId></ResponseMetadata>`,
    '</GetCallerIdentityResponse>',
  ].join('');
}

/** An STS error document (`Sender` for a 4xx). */
export function stsErrorResponse(code: string, message: string, requestId: string): string {
  return (
    '<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">' +
    `<Error><Type>Sender</Type><Code>${escapeXml(code)}</Code><Message>${escapeXml(message)}</Message></Error>` +
    `<RequestId>${requestId}</RequestId></ErrorResponse>`
  );
}

const escapeXml = (text: string) =>
  text.replace(/[<>&"']/g, (char) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[char]!);
