import { isIP } from 'node:net';
import { matchesPattern, type VariableLookup } from './patterns.ts';

/** One value of a `Condition` key as policies write it. */
export type ConditionValue = string | number | boolean | readonly (string | number | boolean)[];

/** `Condition`: operator → key → value(s). */
export type ConditionBlock = Readonly<Record<string, Readonly<Record<string, ConditionValue>>>>;

/** The request context keyed by lower-case key name (condition key names are case-insensitive), values as text. */
export type NormalizedContext = ReadonlyMap<string, readonly string[]>;

interface Operator {
  /** The positive comparison of one request value with one policy value. */
  test(requestValue: string, policyValue: string, variables: VariableLookup | undefined): boolean;
  /** StringNotEquals & co: true when no policy value matches (AWS: "negated matching ... logical NOR"). */
  negated: boolean;
}

const stringEquals: Operator['test'] = (value, policy, variables) =>
  matchesPattern(policy, value, 'exact', { variables });
const stringEqualsIgnoreCase: Operator['test'] = (value, policy, variables) =>
  matchesPattern(policy, value, 'exact', { variables, ignoreCase: true });
const stringLike: Operator['test'] = (value, policy, variables) => matchesPattern(policy, value, 'like', { variables });
const numeric =
  (compare: (a: number, b: number) => boolean): Operator['test'] =>
  (value, policy) => {
    const [a, b] = [toNumber(value), toNumber(policy)];
    return !Number.isNaN(a) && !Number.isNaN(b) && compare(a, b);
  };
const date =
  (compare: (a: number, b: number) => boolean): Operator['test'] =>
  (value, policy) => {
    const [a, b] = [toEpochMillis(value), toEpochMillis(policy)];
    return !Number.isNaN(a) && !Number.isNaN(b) && compare(a, b);
  };
const eq = (a: number, b: number) => a === b;
const lt = (a: number, b: number) => a < b;
const le = (a: number, b: number) => a <= b;
const gt = (a: number, b: number) => a > b;
const ge = (a: number, b: number) => a >= b;

const OPERATORS: Readonly<Record<string, Operator>> = {
  StringEquals: { test: stringEquals, negated: false },
  StringNotEquals: { test: stringEquals, negated: true },
  StringEqualsIgnoreCase: { test: stringEqualsIgnoreCase, negated: false },
  StringNotEqualsIgnoreCase: { test: stringEqualsIgnoreCase, negated: true },
  StringLike: { test: stringLike, negated: false },
  StringNotLike: { test: stringLike, negated: true },
  NumericEquals: { test: numeric(eq), negated: false },
  NumericNotEquals: { test: numeric(eq), negated: true },
  NumericLessThan: { test: numeric(lt), negated: false },
  NumericLessThanEquals: { test: numeric(le), negated: false },
  NumericGreaterThan: { test: numeric(gt), negated: false },
  NumericGreaterThanEquals: { test: numeric(ge), negated: false },
  DateEquals: { test: date(eq), negated: false },
  DateNotEquals: { test: date(eq), negated: true },
  DateLessThan: { test: date(lt), negated: false },
  DateLessThanEquals: { test: date(le), negated: false },
  DateGreaterThan: { test: date(gt), negated: false },
  DateGreaterThanEquals: { test: date(ge), negated: false },
  Bool: { test: (value, policy) => value.toLowerCase() === policy.toLowerCase(), negated: false },
  BinaryEquals: { test: binaryEquals, negated: false },
  IpAddress: { test: inCidr, negated: false },
  NotIpAddress: { test: inCidr, negated: true },
  ArnEquals: { test: arnLike, negated: false },
  ArnLike: { test: arnLike, negated: false },
  ArnNotEquals: { test: arnLike, negated: true },
  ArnNotLike: { test: arnLike, negated: true },
};

const OPERATOR_NAME = /^(?:(ForAllValues|ForAnyValue):)?([A-Za-z]+?)(IfExists)?$/;

/** Whether `name` is a condition operator this evaluator implements (with its set prefix and IfExists suffix). */
export function isSupportedOperator(name: string): boolean {
  const parsed = OPERATOR_NAME.exec(name);
  if (!parsed) return false;
  if (parsed[2] === 'Null') return !parsed[1] && !parsed[3];
  return parsed[2]! in OPERATORS;
}

/**
 * Evaluates a statement's `Condition` block: every operator and every key must hold (AND); the values listed for
 * one key are alternatives (OR, or NOR for negated operators). An operator this evaluator does not know fails
 * closed: it makes an Allow statement not apply and a Deny statement apply.
 */
export function conditionsHold(
  block: ConditionBlock | undefined,
  context: NormalizedContext,
  effect: 'Allow' | 'Deny',
  variables: VariableLookup | undefined,
): boolean {
  if (!block) return true;
  for (const [operatorName, keys] of Object.entries(block)) {
    if (!isSupportedOperator(operatorName)) return effect === 'Deny';
    for (const [key, value] of Object.entries(keys)) {
      if (!keyHolds(operatorName, key, toStrings(value), context, variables)) return false;
    }
  }
  return true;
}

function keyHolds(
  operatorName: string,
  key: string,
  policyValues: readonly string[],
  context: NormalizedContext,
  variables: VariableLookup | undefined,
): boolean {
  const [, set, base, ifExists] = OPERATOR_NAME.exec(operatorName)!;
  const requestValues = context.get(key.toLowerCase()) ?? [];
  const present = requestValues.length > 0;
  if (base === 'Null') return policyValues.some((value) => (value.toLowerCase() === 'true') !== present);
  if (!present) {
    if (ifExists) return true;
    // ForAllValues holds over an empty set; a negated operator holds when the key is absent (IAM User Guide,
    // "Condition operators": "If the policy condition requires that the key is not matched ... the condition is true").
    if (set === 'ForAllValues') return true;
    if (set === 'ForAnyValue') return false;
    return OPERATORS[base!]!.negated;
  }
  const operator = OPERATORS[base!]!;
  const matchesAny = (value: string) => policyValues.some((policy) => operator.test(value, policy, variables));
  const holdsFor = (value: string) => matchesAny(value) !== operator.negated;
  if (set === 'ForAllValues') return requestValues.every(holdsFor);
  if (set === 'ForAnyValue') return requestValues.some(holdsFor);
  return operator.negated ? !requestValues.some(matchesAny) : requestValues.some(matchesAny);
}

function toStrings(value: ConditionValue): string[] {
  return (Array.isArray(value) ? value : [value]).map(String);
}

function toNumber(text: string): number {
  return text.trim() === '' ? Number.NaN : Number(text);
}

/** Date condition values are ISO 8601 or epoch seconds (IAM User Guide, "Date condition operators"). */
function toEpochMillis(text: string): number {
  if (/^-?\d+(\.\d+)?$/.test(text.trim())) return Number(text) * 1000;
  return Date.parse(text);
}

function binaryEquals(value: string, policy: string): boolean {
  return Buffer.from(value, 'base64').equals(Buffer.from(policy, 'base64'));
}

/** Each of the six colon-delimited ARN parts is matched separately; the resource part keeps its colons. */
function arnLike(value: string, policy: string, variables: VariableLookup | undefined): boolean {
  const valueParts = arnParts(value);
  const policyParts = arnParts(policy);
  if (!valueParts || !policyParts) return false;
  return policyParts.every((part, index) => matchesPattern(part, valueParts[index]!, 'like', { variables }));
}

function arnParts(arn: string): string[] | undefined {
  const parts = arn.split(':');
  if (parts.length < 6) return undefined;
  return [...parts.slice(0, 5), parts.slice(5).join(':')];
}

function inCidr(value: string, cidr: string): boolean {
  const [network, bitsText] = cidr.trim().split('/');
  const address = parseIp(value.trim());
  const base = parseIp(network ?? '');
  if (!address || !base || address.width !== base.width) return false;
  const bits = bitsText === undefined ? base.width : Number(bitsText);
  if (!Number.isInteger(bits) || bits < 0 || bits > base.width) return false;
  const shift = BigInt(base.width - bits);
  return address.value >> shift === base.value >> shift;
}

function parseIp(text: string): { value: bigint; width: number } | undefined {
  const family = isIP(text);
  if (family === 4) {
    return { value: text.split('.').reduce((sum, octet) => (sum << 8n) + BigInt(octet), 0n), width: 32 };
  }
  if (family !== 6) return undefined;
  let groups = text.toLowerCase();
  const embeddedV4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(groups);
  if (embeddedV4) {
    const v4 = parseIp(embeddedV4[1]!)!.value;
    groups = `${groups.slice(0, -embeddedV4[1]!.length)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head = '', tail] = groups.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const zeros = tail === undefined ? [] : Array(8 - headGroups.length - tailGroups.length).fill('0');
  const all = [...headGroups, ...zeros, ...tailGroups];
  return { value: all.reduce((sum, group) => (sum << 16n) + BigInt(`0x${group}`), 0n), width: 128 };
}
