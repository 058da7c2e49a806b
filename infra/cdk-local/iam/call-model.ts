import type { ContextValue, RequestContext } from './policy.ts';

/** An HTTP request as the gateway received it. */
export interface HttpRequest {
  method: string;
  /** Path and query string as received (`IncomingMessage.url`), still percent-encoded. */
  path: string;
  /** Header names in lower case. */
  headers: Readonly<Record<string, string | undefined>>;
  body: Buffer;
  /** The caller's address, for `aws:SourceIp`; omitted from the context when unknown. */
  sourceIp?: string;
}

/** The request target split, but not normalized: S3 keys may hold `.` and `..` segments that URL parsing resolves. */
export interface RequestTarget {
  /** The path, still percent-encoded. */
  pathname: string;
  searchParams: URLSearchParams;
}

/** What the describer needs to know about the deployment to name resources as AWS does. */
export interface DescribeContext {
  /** The account of every local resource (`000000000000`). */
  account: string;
  /** Region when the signature names none (SigV4a); otherwise the signature's region wins. */
  defaultRegion?: string;
  /** The caller's role (or role session) ARN for `aws:PrincipalArn`; unknown callers get no principal keys. */
  principalArn?(accessKeyId: string): string | undefined;
  /** The full ARN of an existing secret from a `SecretId` (name, partial or full ARN). */
  secretArn?(secretIdOrName: string): string | undefined;
  /** The ARN CreateSecret will give a new secret; by default `<name>-` and six random characters. */
  newSecretArn?(name: string): string;
  /** The key ARN behind a key id, key ARN, alias name (`alias/x`) or alias ARN. */
  kmsKeyArn?(keyIdOrAlias: string): string | undefined;
  /** The key ARN that encrypted a ciphertext (for Decrypt and ReEncrypt without a key id). */
  kmsKeyArnForCiphertext?(ciphertextBlobBase64: string): string | undefined;
  /** A table's (or index's) partition key attribute name, to fill `dynamodb:LeadingKeys`. */
  partitionKeyName?(tableName: string, indexName?: string): string | undefined;
  /** Host names of the gateway itself: `<bucket>.<host>` is then a virtual-hosted S3 request. */
  s3Hosts?: readonly string[];
  now?(): Date;
}

/** One IAM authorization a call needs: an action on a resource, with the condition keys AWS would supply. */
export interface AwsAuthorization {
  action: string;
  resource: string;
  context: RequestContext;
}

/** What one AWS SDK request asks for. */
export interface AwsCall {
  accessKeyId: string;
  /** The SigV4 signing name: dynamodb, sqs, events, secretsmanager, ssm, kms, s3, lambda. */
  service: string;
  /** The API operation (`PutItem`, `UploadPart`, `Invoke`). */
  operation: string;
  /** The signature's region. */
  region: string;
  /** Every authorization the call needs; all must be allowed. */
  authorizations: AwsAuthorization[];
  /** For a pre-signed URL: when it was signed (`X-Amz-Date`) and for how long it is valid (`X-Amz-Expires`). */
  presigned?: { signedAt: Date; expiresSeconds: number; amzDate: string };
}

/**
 * Why a request could not be described: `unsigned` (no SigV4 identity), `malformed` (unreadable signature or body,
 * missing parameter) or `unsupported` (a service or operation this model does not know; `target` names it).
 */
export interface AwsCallError {
  error: string;
  reason: 'unsigned' | 'malformed' | 'unsupported';
  target?: string;
}

/** The part of an authorization a service describer decides; the common keys are added afterwards. */
export interface ServiceAuthorization {
  action: string;
  resource: string;
  context?: Record<string, ContextValue | undefined>;
}

/** A service describer's answer: the operation and its authorizations, or why it cannot say. */
export type ServiceDescription = { operation: string; authorizations: ServiceAuthorization[] } | AwsCallError;

/** What a service describer gets besides the request. */
export interface CallEnv {
  region: string;
  account: string;
  ctx: DescribeContext;
  /** The signature came in the query string (a pre-signed URL). */
  presigned: boolean;
  signedAt?: Date;
  now: Date;
}

/** Thrown inside describers for a missing or unreadable parameter; becomes a `malformed` result. */
export class MalformedCallError extends Error {}
