import { type ConditionBlock, conditionsHold, type NormalizedContext } from './conditions.ts';
import { matchesPattern, type VariableLookup } from './patterns.ts';

export type { ConditionBlock, ConditionValue } from './conditions.ts';

/** `Action`, `Resource` and their `Not` forms: one string or a list. */
export type PolicyList = string | readonly string[];

/** `Principal` / `NotPrincipal` of a resource-based policy. */
export type PolicyPrincipal =
  | '*'
  | Readonly<{ AWS?: PolicyList; Service?: PolicyList; Federated?: PolicyList; CanonicalUser?: PolicyList }>;

/** One statement, with intrinsic functions already resolved to plain strings. */
export interface PolicyStatement {
  Sid?: string;
  Effect: 'Allow' | 'Deny';
  Principal?: PolicyPrincipal;
  NotPrincipal?: PolicyPrincipal;
  Action?: PolicyList;
  NotAction?: PolicyList;
  Resource?: PolicyList;
  NotResource?: PolicyList;
  Condition?: ConditionBlock;
}

/** An identity-based or resource-based policy document. */
export interface PolicyDocument {
  /** Policy variables (`${aws:username}`) are expanded only under `2012-10-17`, as in IAM. */
  Version?: string;
  Id?: string;
  Statement: PolicyStatement | readonly PolicyStatement[];
}

export type ContextScalar = string | number | boolean;
/** A request context value; a list is a multivalued key (`aws:TagKeys`, `dynamodb:LeadingKeys`). */
export type ContextValue = ContextScalar | readonly ContextScalar[];
/** Condition keys of one request (`aws:SecureTransport`, `kms:EncryptionContext:tenant`…); names are case-insensitive. */
export type RequestContext = Readonly<Record<string, ContextValue | undefined>>;

/** What one authorization asks for: `dynamodb:PutItem` on a table ARN, with its condition keys. */
export interface AccessRequest {
  action: string;
  /** The resource ARN, or `*` for actions without resource-level permissions (`ssm:DescribeParameters`). */
  resource: string;
  /** Condition keys; values that are not a {@link ContextValue} (objects, null) count as absent. */
  context: RequestContext | Readonly<Record<string, unknown>>;
}

/** The result of evaluating one kind of policy. */
export type Decision = 'allow' | 'explicit-deny' | 'implicit-deny';

/** Points at a statement that applied to a request. */
export interface StatementRef {
  /** Index of the document in the list evaluated. */
  document: number;
  /** Index of the statement in that document's `Statement` list. */
  statement: number;
  sid?: string;
  effect: 'Allow' | 'Deny';
}

/** A decision with the statements behind it. */
export interface Evaluation {
  decision: Decision;
  /** Allow statements that applied (action, resource and conditions). */
  allowedBy: StatementRef[];
  /** Deny statements that applied; any one makes the decision `explicit-deny`. */
  deniedBy: StatementRef[];
  /**
   * The grant pairs (as {@link grantedActions} writes them) of the applying Allow statements that match the request:
   * the ones to mark as used, also when a Deny won.
   */
  matchedGrants: string[];
}

/**
 * Evaluates identity-based policies (`Principal` is ignored) for one request: an applying Deny wins, otherwise an
 * applying Allow allows, otherwise the request is implicitly denied.
 */
export function evaluate(documents: readonly PolicyDocument[], request: AccessRequest): Decision {
  return evaluateWithMatches(documents, request).decision;
}

/** {@link evaluate}, also telling which statements and grant pairs applied. */
export function evaluateWithMatches(documents: readonly PolicyDocument[], request: AccessRequest): Evaluation {
  const hits = applyingStatements(documents, request, undefined);
  return toEvaluation(hits);
}

/** The caller of {@link authorize} as a resource-based policy's `Principal` sees it. */
interface Caller {
  /** ARNs that name exactly this caller: the role session, then its role. */
  identities: string[];
  account?: string;
  /** A service principal (`events.amazonaws.com`) acting for a resource. */
  service?: string;
}

/** Who calls {@link authorize}: a role (or role session) ARN, or a service principal such as `events.amazonaws.com`. */
export type CallerPrincipal = { arn: string } | { service: string };

/** One request to decide with {@link authorize}; name the caller with `principalArn` or `principal`. */
export type AuthorizeInput = AuthorizeRequest & ({ principalArn: string } | { principal: CallerPrincipal });

interface AuthorizeRequest {
  /** The caller role's policies (inline and managed), intrinsics resolved. */
  identityPolicies: readonly PolicyDocument[];
  /** The resource's policy: bucket policy, queue policy(ies), KMS key policy. */
  resourcePolicy?: PolicyDocument | readonly PolicyDocument[] | undefined;
  request: AccessRequest;
  /**
   * The signing name of the service; `kms` and `sts` get key-policy / trust-policy semantics. Default: the action's
   * prefix.
   */
  service?: string;
}

/** The final decision for one request, and what to record in the IAM ledger. */
export interface AuthorizeResult {
  decision: 'allow' | 'deny';
  reason: 'explicit-deny' | 'no-allow' | 'allowed';
  /**
   * With `explicit-deny`, the policy holding the Deny (identity first). With `no-allow`, the policy that lacked the
   * Allow: `identity`, or `resource` for a KMS key whose policy neither allows the caller nor delegates to IAM.
   */
  deniedBy?: 'identity' | 'resource';
  /** With `allowed`, the policy whose Allow decided (`identity` when both did). */
  allowedBy?: 'identity' | 'resource';
  /** The identity policy's grant pairs that matched the request (see {@link Evaluation.matchedGrants}). */
  matchedGrants: string[];
}

/**
 * Decides a request within one account, as IAM does without SCPs, permissions boundaries or session policies.
 * The caller is a role ARN (`arn:aws:iam::<acct>:role/<name>`), a role session ARN
 * (`arn:aws:sts::<acct>:assumed-role/<role>/<session>`, which statements naming its role also match), or a service
 * principal (`events.amazonaws.com`, given as `{ service }` or as the bare name) acting for a resource; a service has
 * no identity policies and is allowed only by the resource policy.
 * 1. An applying Deny in the identity policies or the resource policy denies.
 * 2. KMS and STS: the key policy (KMS) or the role's trust policy (STS: `sts:AssumeRole`, `sts:TagSession` on a role)
 *    must allow the caller directly, or allow the account root (delegation to IAM) while an identity policy allows
 *    too; without such a policy the request is denied (IAM User Guide, "Policy evaluation logic": role trust policies
 *    and KMS key policies "must explicitly allow access for principals"; a resource-based policy naming a role
 *    within the same account is not limited by an implicit deny in its identity-based policy).
 * 3. Otherwise an Allow in an identity policy, or in the resource policy for a statement whose `Principal` names the
 *    caller (role, session, `*` or the service), allows. A statement naming only the account root delegates to IAM,
 *    so alone it allows nothing.
 */
export function authorize(input: AuthorizeInput): AuthorizeResult {
  const caller =
    'principalArn' in input
      ? parseCaller(input.principalArn)
      : 'service' in input.principal
        ? { identities: [], service: input.principal.service }
        : parseCaller(input.principal.arn);
  const service = input.service ?? input.request.action.split(':')[0]!.toLowerCase();
  const identityHits = caller.service ? [] : applyingStatements(input.identityPolicies, input.request, undefined);
  const resourcePolicies = input.resourcePolicy === undefined ? [] : toList(input.resourcePolicy);
  const resourceHits = applyingStatements(resourcePolicies, input.request, caller);
  const identity = toEvaluation(identityHits);
  const matchedGrants = identity.matchedGrants;
  if (identity.decision === 'explicit-deny')
    return { decision: 'deny', reason: 'explicit-deny', deniedBy: 'identity', matchedGrants };
  if (resourceHits.some((hit) => hit.effect === 'Deny')) {
    return { decision: 'deny', reason: 'explicit-deny', deniedBy: 'resource', matchedGrants };
  }
  const allows = resourceHits.filter((hit) => hit.effect === 'Allow');
  const resourceAllows = allows.some((hit) => hit.principal === 'direct');
  const delegates = allows.some((hit) => hit.principal === 'account');
  const identityAllows = identity.decision === 'allow';
  if (service === 'kms' || service === 'sts') {
    if (resourceAllows) return { decision: 'allow', reason: 'allowed', allowedBy: 'resource', matchedGrants };
    if (delegates && identityAllows)
      return { decision: 'allow', reason: 'allowed', allowedBy: 'identity', matchedGrants };
    return { decision: 'deny', reason: 'no-allow', deniedBy: delegates ? 'identity' : 'resource', matchedGrants };
  }
  if (identityAllows) return { decision: 'allow', reason: 'allowed', allowedBy: 'identity', matchedGrants };
  if (resourceAllows) return { decision: 'allow', reason: 'allowed', allowedBy: 'resource', matchedGrants };
  return { decision: 'deny', reason: 'no-allow', deniedBy: 'identity', matchedGrants };
}

/**
 * Every `"<action> <resource>"` pair the Allow statements grant, deduplicated, in document order: actions and
 * resources as written, lists expanded. A `NotAction` or `NotResource` list is one token `NOT(a|b)`. Conditions are
 * not part of a pair.
 */
export function grantedActions(documents: readonly PolicyDocument[]): string[] {
  const pairs = new Set<string>();
  for (const document of documents) {
    for (const statement of toList(document.Statement)) {
      if (statement.Effect !== 'Allow') continue;
      for (const pair of statementPairs(statement)) pairs.add(pair);
    }
  }
  return [...pairs];
}

/**
 * Whether a grant pair of {@link grantedActions} covers the request's action and resource (conditions, which pairs
 * do not carry, are not checked; prefer {@link Evaluation.matchedGrants}, which are).
 */
export function matchesGrant(pair: string, request: Pick<AccessRequest, 'action' | 'resource'>): boolean {
  const separator = pair.indexOf(' ');
  if (separator < 0) return false;
  const action = parseToken(pair.slice(0, separator));
  const resource = parseToken(pair.slice(separator + 1));
  return (
    action.values.some((pattern) => matchesPattern(pattern, request.action, 'action')) !== action.negated &&
    resource.values.some((pattern) => matchesPattern(pattern, request.resource, 'resource')) !== resource.negated
  );
}

interface Hit extends StatementRef {
  principal: 'direct' | 'account';
  grants: string[];
}

function applyingStatements(
  documents: readonly PolicyDocument[],
  request: AccessRequest,
  caller: Caller | undefined,
): Hit[] {
  const context = normalizeContext(request.context);
  const multivalued = new Set(
    Object.entries(request.context)
      .filter(([, value]) => Array.isArray(value))
      .map(([key]) => key.toLowerCase()),
  );
  const hits: Hit[] = [];
  documents.forEach((document, documentIndex) => {
    const variables = document.Version === '2012-10-17' ? variableLookup(context, multivalued) : undefined;
    toList(document.Statement).forEach((statement, statementIndex) => {
      const principal = caller ? principalMatch(statement, caller) : 'direct';
      if (!principal) return;
      const actions = matching(statement.Action, statement.NotAction, request.action, 'action', undefined);
      if (!actions) return;
      // A resource-based policy may leave the resource out (a role's trust policy must): it is the one it is on.
      const implicit = caller && statement.Resource === undefined && statement.NotResource === undefined;
      const resources = implicit
        ? [request.resource]
        : matching(statement.Resource, statement.NotResource, request.resource, 'resource', variables);
      if (!resources) return;
      if (!conditionsHold(statement.Condition, context, statement.Effect, variables)) return;
      hits.push({
        document: documentIndex,
        statement: statementIndex,
        ...(statement.Sid === undefined ? {} : { sid: statement.Sid }),
        effect: statement.Effect,
        principal,
        grants: actions.flatMap((action) => resources.map((resource) => `${action} ${resource}`)),
      });
    });
  });
  return hits;
}

/**
 * The tokens of `list` (or the one `NOT(…)` token of `notList`) that match `value`, or undefined when the
 * statement does not cover it.
 */
function matching(
  list: PolicyList | undefined,
  notList: PolicyList | undefined,
  value: string,
  kind: 'action' | 'resource',
  variables: VariableLookup | undefined,
): string[] | undefined {
  if (list !== undefined) {
    const matched = toList(list).filter((pattern) => matchesPattern(pattern, value, kind, { variables }));
    return matched.length > 0 ? matched : undefined;
  }
  if (notList !== undefined) {
    const patterns = toList(notList);
    return patterns.some((pattern) => matchesPattern(pattern, value, kind, { variables }))
      ? undefined
      : [notToken(patterns)];
  }
  return undefined;
}

function toEvaluation(hits: readonly Hit[]): Evaluation {
  const ref = ({ document, statement, sid, effect }: Hit): StatementRef => ({
    document,
    statement,
    ...(sid === undefined ? {} : { sid }),
    effect,
  });
  const allows = hits.filter((hit) => hit.effect === 'Allow');
  const denies = hits.filter((hit) => hit.effect === 'Deny');
  return {
    decision: denies.length > 0 ? 'explicit-deny' : allows.length > 0 ? 'allow' : 'implicit-deny',
    allowedBy: allows.map(ref),
    deniedBy: denies.map(ref),
    matchedGrants: [...new Set(allows.flatMap((hit) => hit.grants))],
  };
}

function statementPairs(statement: PolicyStatement): string[] {
  const actions =
    statement.Action !== undefined
      ? toList(statement.Action)
      : statement.NotAction !== undefined
        ? [notToken(toList(statement.NotAction))]
        : [];
  const resources =
    statement.Resource !== undefined
      ? toList(statement.Resource)
      : statement.NotResource !== undefined
        ? [notToken(toList(statement.NotResource))]
        : [];
  return actions.flatMap((action) => resources.map((resource) => `${action} ${resource}`));
}

const notToken = (patterns: readonly string[]) => `NOT(${patterns.join('|')})`;

function parseToken(token: string): { values: string[]; negated: boolean } {
  const not = /^NOT\((.*)\)$/.exec(token);
  return not ? { values: not[1]!.split('|'), negated: true } : { values: [token], negated: false };
}

const ROOT_ARN = /^arn:[^:]+:iam::(\d{12}):root$/;
const ACCOUNT_ID = /^\d{12}$/;

function parseCaller(principal: string): Caller {
  const session = /^arn:([^:]+):sts::(\d{12}):assumed-role\/([^/]+)\/(.+)$/.exec(principal);
  if (session) {
    const [, partition, account, role] = session;
    return { identities: [principal, `arn:${partition}:iam::${account}:role/${role}`], account: account! };
  }
  const root = ROOT_ARN.exec(principal);
  if (root) return { identities: [principal], account: root[1]! };
  if (ACCOUNT_ID.test(principal)) return { identities: [], account: principal };
  const iam = /^arn:[^:]+:iam::(\d{12}):/.exec(principal);
  if (iam) return { identities: [principal], account: iam[1]! };
  return { identities: [], service: principal };
}

/**
 * How a resource policy statement's `Principal` covers the caller: `direct` (the caller, its role, `*`, or its
 * service), `account` (only through the account root, i.e. delegation to IAM), or not at all. A `NotPrincipal`
 * excludes the caller only when it lists every identity AWS may check: session, role and account.
 */
function principalMatch(statement: PolicyStatement, caller: Caller): 'direct' | 'account' | undefined {
  if (statement.Principal !== undefined) return namedBy(statement.Principal, caller);
  if (statement.NotPrincipal !== undefined) {
    const notPrincipal = statement.NotPrincipal;
    const chain = [
      ...caller.identities.map((arn) => ({ identities: [arn] })),
      ...(caller.account ? [{ identities: [], account: caller.account }] : []),
      ...(caller.service ? [{ identities: [], service: caller.service }] : []),
    ];
    return chain.every((link) => namedBy(notPrincipal, link) !== undefined) ? undefined : 'direct';
  }
  return 'direct';
}

function namedBy(principal: PolicyPrincipal, caller: Caller): 'direct' | 'account' | undefined {
  if (principal === '*') return 'direct';
  let match: 'account' | undefined;
  for (const entry of toList(principal.AWS ?? [])) {
    if (entry === '*' || caller.identities.includes(entry)) return 'direct';
    const account = ROOT_ARN.exec(entry)?.[1] ?? (ACCOUNT_ID.test(entry) ? entry : undefined);
    if (account !== undefined && account === caller.account) {
      if (caller.identities.length === 0 && !caller.service) return 'direct';
      match = 'account';
    }
  }
  if (caller.service && toList(principal.Service ?? []).includes(caller.service)) return 'direct';
  return match;
}

function normalizeContext(context: AccessRequest['context']): NormalizedContext {
  const normalized = new Map<string, string[]>();
  for (const [key, value] of Object.entries(context)) {
    const values = (Array.isArray(value) ? value : [value]).filter(isScalar).map(String);
    if (values.length > 0 || Array.isArray(value)) normalized.set(key.toLowerCase(), values);
  }
  return normalized;
}

function isScalar(value: unknown): value is ContextScalar {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/**
 * Multivalued keys (given as a list, even of one value) cannot be policy variables (IAM User Guide, "Single-valued
 * vs. multivalued context keys"; "a multivalued condition key ... fails to be replaced").
 */
function variableLookup(context: NormalizedContext, multivalued: ReadonlySet<string>): VariableLookup {
  return (name) => {
    const key = name.toLowerCase();
    if (multivalued.has(key)) return undefined;
    const values = context.get(key);
    return values?.length === 1 ? values[0] : undefined;
  };
}

function toList<T>(value: T | readonly T[]): readonly T[] {
  return Array.isArray(value) ? value : [value as T];
}
