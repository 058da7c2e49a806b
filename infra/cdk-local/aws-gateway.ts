import { randomUUID } from 'node:crypto';
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignatureV4 } from '@smithy/signature-v4';
import { type Admission, admitSigned, fromLoopback } from '#infra/local/loopback-guard';
import { type LocalCredentials, newSessionCredentials, signingScope } from '#infra/local/sigv4';
import { NodeSha256 } from '#shared/adapters/s3/s3-rest';
import { type AssumeRoleRequest, queryParameters, readAssumeRole } from './iam/sts-service.ts';
import type { IamLedger } from './iam-ledger.ts';
import { AwsServiceError, type AwsServices } from './services.ts';
import { assumeRoleResponse, callerIdentityResponse, StsError, stsErrorResponse } from './sts.ts';

/** What one AWS SDK request asks for, as the IAM check needs it. */
export interface DescribedCall {
  accessKeyId: string;
  /** SigV4 signing name: dynamodb, s3, sqs, events, secretsmanager, ssm, kms, lambda. */
  service: string;
  operation: string;
  authorizations: Authorization[];
  /** Present for a pre-signed URL: when it was signed and for how many seconds. */
  presigned?: { signedAt: Date; expiresSeconds: number };
}

export interface Authorization {
  action: string;
  resource: string;
  context: Record<string, unknown>;
}

/** A function's execution role as the gateway knows its callers. */
export interface GatewayPrincipal {
  /** The function's logical id: the role it acts with, and the key of the IAM report. */
  id: string;
  /**
   * Where the IAM report counts this session's calls, when not under the function itself: a probe session of the
   * function's role (`probe:<logical id>`, GET /_local/assume-role) that a test uses to show what the role may not do.
   */
  ledgerId?: string;
  roleName: string;
  /** The assumed-role session name (the function name on Lambda). */
  sessionName: string;
  /**
   * The role's logical id, when it is not the function's own: the operator's (`operator:<id>`), or the role a session
   * made by `AssumeRole` acts with (`<caller>@<role's logical id>`).
   */
  roleId?: string;
  /** The session's tags (`aws:PrincipalTag/<key>`): incoming transitive tags and those passed to AssumeRole. */
  tags?: Readonly<Record<string, string>>;
  /** The tags a further AssumeRole of this session passes on (role chaining). */
  transitiveTags?: Readonly<Record<string, string>>;
  /** A session made by `AssumeRole` (so one it assumes in turn is role chaining, of an hour at most). */
  chained?: boolean;
  /** When AssumeRole issued the session (`aws:TokenIssueTime`) and when its credentials stop working (epoch ms). */
  issuedAt?: number;
  expiresAt?: number;
}

export interface AuthorizationDecision {
  allowed: boolean;
  /** Denied by an explicit Deny statement, and in which kind of policy. */
  explicitDenyIn?: 'identity' | 'resource';
  /** The granted `<action> <resource>` pairs of the identity policy that allowed the call. */
  matchedGrants: string[];
}

/** The IAM model: describes SDK requests and evaluates a principal's policies for them. */
export interface CallAuthorizer {
  describe(http: {
    method: string;
    path: string;
    headers: Record<string, string>;
    body: Buffer;
  }): DescribedCall | { error: string };
  authorize(principal: GatewayPrincipal, authorization: Authorization): AuthorizationDecision;
  /**
   * STS `AssumeRole` once IAM allowed it: the new session of the role for `accessKeyId` (its calls are then checked
   * against that role with the session's tags), or an {@link StsError} (unknown role, a duration or tag STS refuses).
   */
  assumeRole?(
    caller: GatewayPrincipal,
    request: AssumeRoleRequest,
    accessKeyId: string,
    now: Date,
  ): { principal: GatewayPrincipal; arn: string; assumedRoleId: string; granted: string[] };
  /** The ARN and `aws:userid` of a principal, for `GetCallerIdentity`. */
  identityOf?(principal: GatewayPrincipal): { arn: string; userId: string };
}

export interface GatewayBackends {
  /** dynalite's endpoint. */
  dynamodb: string;
  /** s3rver's endpoint. */
  s3: string;
  /** The in-process queues and bus behind the AWS JSON protocol (infra/local/aws-emulator.ts). */
  sqsAndEvents: string;
  /** The stack's key of this run: the backends above answer only it, so the gateway signs what it forwards with it. */
  localCredentials: LocalCredentials;
  services: AwsServices;
  /** Lambda's Invoke API: RequestResponse or Event. */
  invoke(
    functionNameOrArn: string,
    payload: Buffer,
    type: string,
  ): Promise<{ payload: string; functionError?: string }>;
}

/** Lambda's limit on how long a pre-signed URL made with a role session's credentials can be used. */
const MAX_PRESIGNED_SECONDS = 7 * 24 * 3600;

/** A function's role session as the gateway knows it: the principal and the key pair its processes sign with. */
interface Session {
  principal: GatewayPrincipal;
  credentials: LocalCredentials & { sessionToken?: string };
}

/**
 * One loopback endpoint for every AWS API the functions call (they reach it through `AWS_ENDPOINT_URL`): each
 * request is attributed to a function by its access key id, its SigV4 signature verified with that function's own
 * secret key of this run (so no one else can speak for a function), checked against the function's role in the
 * template, recorded in the IAM ledger, and then served by the local backend — or refused as AWS refuses it. A request
 * with an `Origin` header or a `Host` other than its loopback name and port is refused first (CONTRACT §21).
 */
export class AwsGateway {
  #server: Server;
  #sessions = new Map<string, Session>();

  constructor(
    private readonly authorizer: CallAuthorizer,
    private readonly ledger: IamLedger,
    private readonly backends: () => GatewayBackends,
    private readonly account: string,
    /** The clock sessions expire by (tests move it; signatures are still checked against the real time). */
    private readonly now: () => Date = () => new Date(),
  ) {
    this.#server = createServer((request, response) => {
      void this.#handle(request, response).catch((error: unknown) => {
        if (!response.headersSent) {
          jsonError(response, 500, 'InternalFailure', (error as Error).message);
        } else response.end();
      });
    });
    this.#server.keepAliveTimeout = 5_000;
  }

  /**
   * Lets a function's processes call AWS with their session's key pair (and token): `accessKeyId` names the caller,
   * and every signature is checked with `credentials.secretAccessKey`.
   */
  addPrincipal(
    accessKeyId: string,
    principal: GatewayPrincipal,
    credentials: { secretAccessKey: string; sessionToken?: string },
  ): void {
    this.#sessions.set(accessKeyId, { principal, credentials: { accessKeyId, ...credentials } });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(request: IncomingMessage, response: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const headers = Object.fromEntries(
      Object.entries(request.headers).map(([name, value]) => [
        name,
        Array.isArray(value) ? value.join(',') : (value ?? ''),
      ]),
    );
    const method = request.method ?? 'GET';
    const path = request.url ?? '/';
    const { port } = this.#server.address() as AddressInfo;
    const scope = signingScope({ url: path, headers });
    const local = fromLoopback(request, port);
    if (!local.ok) return this.#refuse(response, scope?.service, local);
    if (!scope) {
      return this.#refuse(response, undefined, { ok: false, kind: 'unsigned', reason: 'Missing Authentication Token' });
    }
    const call = this.authorizer.describe({ method, path, headers, body });
    if ('error' in call) {
      // STS speaks the Query protocol: its clients read XML errors only.
      if (scope.service === 'sts') return this.#deny(response, 'sts', 400, 'ValidationError', call.error);
      return jsonError(response, 400, 'UnknownOperationException', call.error);
    }
    const session = this.#sessions.get(call.accessKeyId);
    if (!session) {
      return this.#deny(
        response,
        call.service,
        403,
        // Each protocol names an unknown key its own way: S3 InvalidAccessKeyId, SQS InvalidClientTokenId, the other
        // JSON services and Lambda UnrecognizedClientException.
        call.service === 'sqs' ? 'InvalidClientTokenId' : 'UnrecognizedClientException',
        'The security token included in the request is invalid.',
      );
    }
    if (call.presigned) {
      const age = (Date.now() - call.presigned.signedAt.getTime()) / 1000;
      if (call.presigned.expiresSeconds > MAX_PRESIGNED_SECONDS || age > call.presigned.expiresSeconds) {
        return this.#deny(response, call.service, 403, 'AccessDenied', 'Request has expired');
      }
    }
    // The caller proves it is the function: the signature is made with that function's secret key of this run, and
    // the session token is the one its processes were given.
    const verdict = admitSigned(request, port, () => session.credentials, body);
    if (!verdict.ok) return this.#refuse(response, call.service, verdict);
    const token =
      headers['x-amz-security-token'] || new URLSearchParams(path.split('?')[1]).get('X-Amz-Security-Token');
    if (session.credentials.sessionToken !== undefined && token !== session.credentials.sessionToken) {
      return this.#refuse(response, call.service, {
        ok: false,
        kind: 'unknown-key',
        reason: 'The security token included in the request is invalid.',
      });
    }
    const { principal } = session;
    if (principal.expiresAt !== undefined && this.now().getTime() >= principal.expiresAt) {
      this.#sessions.delete(call.accessKeyId);
      const code =
        call.service === 's3' || call.service === 'sts' || call.service === 'sqs'
          ? 'ExpiredToken'
          : 'ExpiredTokenException';
      return this.#deny(response, call.service, 403, code, 'The security token included in the request is expired');
    }
    const refusal = this.#refusal(call, principal);
    if (refusal) return this.#deny(response, call.service, 403, 'AccessDeniedException', refusal);
    return this.#serve(call, { method, path, headers, body }, response, principal);
  }

  /**
   * Checks every authorization of the call against the caller's role (and records it): the AccessDenied message of
   * the first one refused in enforce mode, or undefined when the call may go on.
   */
  #refusal(call: DescribedCall, principal: GatewayPrincipal): string | undefined {
    if (this.ledger.mode === 'off') return undefined;
    for (const authorization of call.authorizations) {
      const decision = this.authorizer.authorize(principal, authorization);
      if (decision.allowed) {
        this.ledger.used(principal.ledgerId ?? principal.id, decision.matchedGrants);
        continue;
      }
      this.ledger.denied(principal.ledgerId ?? principal.id, authorization.action, authorization.resource);
      if (this.ledger.mode === 'enforce') {
        const why = decision.explicitDenyIn
          ? `with an explicit deny in a${decision.explicitDenyIn === 'identity' ? 'n identity' : ' resource'}-based policy`
          : `because no identity-based policy allows the ${authorization.action} action`;
        return (
          `User: arn:aws:sts::${this.account}:assumed-role/${principal.roleName}/${principal.sessionName} is not ` +
          `authorized to perform: ${authorization.action} on resource: ${authorization.resource} ${why}`
        );
      }
    }
    return undefined;
  }

  async #serve(
    call: DescribedCall,
    http: { method: string; path: string; headers: Record<string, string>; body: Buffer },
    response: ServerResponse,
    principal: GatewayPrincipal,
  ) {
    const backends = this.backends();
    switch (call.service) {
      case 'sts':
        return this.#sts(principal, http, response);
      // The embedded servers answer only the local key (infra/local/loopback-guard.ts): the call, already checked
      // against the function's role, is signed again with it.
      case 'dynamodb':
        return forward(
          backends.dynamodb,
          await signedLocally(http, 'dynamodb', backends.dynamodb, backends.localCredentials),
          response,
        );
      case 's3':
        return forward(backends.s3, await signedLocally(http, 's3', backends.s3, backends.localCredentials), response);
      case 'sqs':
      case 'events':
        return forward(
          backends.sqsAndEvents,
          await signedLocally(http, call.service, backends.sqsAndEvents, backends.localCredentials),
          response,
        );
      case 'secretsmanager':
      case 'ssm':
      case 'kms': {
        const target = http.headers['x-amz-target'] ?? '';
        try {
          const output = backends.services.handle(target, JSON.parse(http.body.toString('utf8') || '{}'));
          response.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
          return void response.end(JSON.stringify(output));
        } catch (error) {
          if (!(error instanceof AwsServiceError)) throw error;
          return jsonError(response, error.status, error.code, error.message);
        }
      }
      case 'lambda': {
        const name = decodeURIComponent(/\/functions\/([^/]+)\/invocations/.exec(http.path)?.[1] ?? '');
        const type = http.headers['x-amz-invocation-type'] ?? 'RequestResponse';
        const result = await backends.invoke(name, http.body, type);
        const headers: Record<string, string> = {
          'content-type': 'application/json',
          'x-amz-executed-version': '$LATEST',
        };
        if (result.functionError) headers['x-amz-function-error'] = result.functionError;
        response.writeHead(type === 'Event' ? 202 : 200, headers);
        return void response.end(type === 'Event' ? '' : result.payload);
      }
      default:
        return jsonError(response, 400, 'UnknownOperationException', `${call.service} is not emulated locally`);
    }
  }

  /**
   * STS: `AssumeRole` (already allowed by the caller's role and the target's trust policy) issues a fresh key pair,
   * secret and session token, known from then on as a session of the target role with the request's tags, until it
   * expires; `GetCallerIdentity` names the caller.
   */
  #sts(principal: GatewayPrincipal, http: { path: string; body: Buffer }, response: ServerResponse) {
    const parameters = queryParameters(http, { searchParams: new URLSearchParams(http.path.split('?')[1] ?? '') });
    const requestId = randomUUID();
    const reply = (status: number, xml: string) => {
      response.writeHead(status, { 'content-type': 'text/xml', 'x-amzn-requestid': requestId });
      response.end(xml);
    };
    try {
      if (parameters.get('Action') === 'GetCallerIdentity') {
        const identity = this.authorizer.identityOf?.(principal);
        if (!identity) throw new StsError('InvalidAction', 'GetCallerIdentity is not emulated here');
        return reply(200, callerIdentityResponse({ ...identity, account: this.account, requestId }));
      }
      if (!this.authorizer.assumeRole) throw new StsError('InvalidAction', 'AssumeRole is not emulated here');
      const credentials = newSessionCredentials();
      const issued = this.authorizer.assumeRole(
        principal,
        readAssumeRole(parameters),
        credentials.accessKeyId,
        this.now(),
      );
      this.#forgetExpired();
      this.#sessions.set(credentials.accessKeyId, { principal: issued.principal, credentials });
      this.ledger.declare(issued.principal.ledgerId ?? issued.principal.id, issued.granted);
      this.ledger.assumed(principal.ledgerId ?? principal.id);
      const expiration = new Date(issued.principal.expiresAt!);
      return reply(
        200,
        assumeRoleResponse({
          credentials,
          expiration,
          arn: issued.arn,
          assumedRoleId: issued.assumedRoleId,
          requestId,
        }),
      );
    } catch (error) {
      if (!(error instanceof StsError)) throw error;
      return reply(error.status, stsErrorResponse(error.code, error.message, requestId));
    }
  }

  /** Sessions past their expiry are forgotten (their key then is unknown, as AWS's is). */
  #forgetExpired() {
    const now = this.now().getTime();
    for (const [accessKeyId, session] of this.#sessions) {
      if (session.principal.expiresAt !== undefined && now >= session.principal.expiresAt + 3_600_000) {
        this.#sessions.delete(accessKeyId);
      }
    }
  }

  /**
   * A request refused before its call is checked (CONTRACT §21), in its service's protocol: from a web page or a
   * foreign `Host`, unsigned, signed with an unknown key, or with a signature that does not hold.
   */
  #refuse(response: ServerResponse, service: string | undefined, refusal: Exclude<Admission, { ok: true }>) {
    const s3 = service === 's3';
    const sqs = service === 'sqs';
    switch (refusal.kind) {
      case 'origin':
      case 'host':
        return this.#deny(response, service ?? '', 403, 'AccessDeniedException', refusal.reason);
      case 'unsigned':
        return this.#deny(
          response,
          service ?? '',
          403,
          s3 ? 'AccessDenied' : sqs ? 'MissingAuthenticationToken' : 'MissingAuthenticationTokenException',
          refusal.reason,
        );
      case 'unknown-key':
        return this.#deny(
          response,
          service ?? '',
          403,
          sqs ? 'InvalidClientTokenId' : 'UnrecognizedClientException',
          'The security token included in the request is invalid.',
        );
      case 'invalid':
        return this.#deny(
          response,
          service ?? '',
          403,
          s3 || sqs ? 'SignatureDoesNotMatch' : 'InvalidSignatureException',
          `The request signature we calculated does not match the signature you provided (${refusal.reason}).`,
        );
    }
  }

  #deny(response: ServerResponse, service: string, status: number, code: string, message: string) {
    if (service === 'sts') {
      const stsCode = STS_CODES[code] ?? code;
      response.writeHead(status, { 'content-type': 'text/xml' });
      return void response.end(stsErrorResponse(stsCode, message, randomUUID()));
    }
    if (service === 's3') {
      const s3Code =
        code === 'AccessDeniedException'
          ? 'AccessDenied'
          : code === 'UnrecognizedClientException'
            ? 'InvalidAccessKeyId'
            : code;
      response.writeHead(status, { 'content-type': 'application/xml' });
      return void response.end(
        `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${s3Code}</Code><Message>${escapeXml(message)}</Message></Error>`,
      );
    }
    return jsonError(response, status === 403 && service !== 'lambda' ? 400 : status, code, message);
  }
}

/** The Query protocol's names for the refusals the JSON services name otherwise. */
const STS_CODES: Readonly<Record<string, string>> = {
  AccessDeniedException: 'AccessDenied',
  UnrecognizedClientException: 'InvalidClientTokenId',
  MissingAuthenticationTokenException: 'MissingAuthenticationToken',
  InvalidSignatureException: 'SignatureDoesNotMatch',
};

function jsonError(response: ServerResponse, status: number, code: string, message: string) {
  response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-errortype': code });
  response.end(JSON.stringify({ __type: code, message, Message: message }));
}

const SIGNATURE_HEADERS = ['authorization', 'x-amz-date', 'x-amz-security-token', 'host', 'content-length'];

/**
 * The request as the local key signs it for `base`, in the Authorization header: a pre-signed URL's own signature
 * (the function's session) is taken off the query, its payload is unsigned as S3 pre-signed GETs are.
 */
async function signedLocally(
  http: { method: string; path: string; headers: Record<string, string>; body: Buffer },
  service: string,
  base: string,
  credentials: LocalCredentials,
) {
  const target = new URL(base);
  const [pathname, rawQuery = ''] = http.path.split('?', 2) as [string, string?];
  const query: Record<string, string> = {};
  let region = 'us-east-1';
  for (const pair of rawQuery.split('&').filter(Boolean)) {
    const [name, value = ''] = pair.split('=', 2) as [string, string?];
    const key = decodeURIComponent(name);
    const decoded = decodeURIComponent(value.replace(/\+/g, '%20'));
    if (key === 'X-Amz-Credential') region = decoded.split('/')[2] ?? region;
    if (!key.startsWith('X-Amz-')) query[key] = decoded;
  }
  const scope = /Credential=[^/]+\/\d{8}\/([^/]+)\//.exec(http.headers.authorization ?? '');
  if (scope) region = scope[1]!;
  const headers = Object.fromEntries(
    Object.entries(http.headers).filter(([name]) => !SIGNATURE_HEADERS.includes(name.toLowerCase())),
  );
  if (service === 's3') headers['x-amz-content-sha256'] ??= 'UNSIGNED-PAYLOAD';
  const signer = new SignatureV4({
    service,
    region,
    credentials,
    sha256: NodeSha256,
    uriEscapePath: service !== 's3',
  });
  const signed = await signer.sign({
    method: http.method,
    protocol: target.protocol,
    hostname: target.hostname,
    port: Number(target.port),
    path: pathname,
    query,
    headers: { ...headers, host: target.host },
    body: http.body,
  });
  const search = new URLSearchParams(query).toString().replace(/\+/g, '%20');
  return { ...http, path: search ? `${pathname}?${search}` : pathname, headers: signed.headers };
}

function forward(
  base: string,
  http: { method: string; path: string; headers: Record<string, string>; body: Buffer },
  response: ServerResponse,
): Promise<void> {
  const target = new URL(base);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: http.method,
        path: http.path,
        headers: { ...http.headers, host: target.host, 'content-length': String(http.body.length) },
      },
      (incoming) => {
        response.writeHead(incoming.statusCode ?? 502, incoming.headers);
        incoming.pipe(response);
        incoming.on('end', resolve);
        incoming.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(http.body);
  });
}

const escapeXml = (text: string) => text.replace(/[<>&"']/g, (char) => `&#${char.charCodeAt(0)};`);
