import { GetSecretValueCommand, PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { activateKey, addKey, newKeySet, retireKey } from '#shared/auth/key-set';
import { type KeySetDocument, publicJwk } from '#shared/ports/key-store';

type Rotation = { action: 'add' } | { action: 'activate' | 'retire'; kid: string };
type StackEvent = Pick<CloudFormationCustomResourceEvent, 'RequestType'> & { PhysicalResourceId?: string };

const secrets = new SecretsManagerClient({});
const ssm = new SSMClient({});

/**
 * Keeper of the JWT key set (infra/aws/constructs/jwt-keys.ts), the one writer of the secret and the parameter.
 * - Custom resource Create/Update: generate a key set only if the secret holds none, then (re)publish its JWKS.
 *   Delete keeps the keys: the secret's removal policy decides.
 * - Direct invocation, one rotation step (shared/auth/key-set.ts): `{"action":"add"}`, then after the verifiers'
 *   refresh `{"action":"activate","kid":"k_…"}`, then after the token lifetime `{"action":"retire","kid":"k_…"}`.
 * The public JWKS is always written before the secret, so no token is ever signed with an unpublished key.
 */
export const handler = async (event: StackEvent | Rotation) => {
  if ('RequestType' in event) {
    if (event.RequestType === 'Delete') return { PhysicalResourceId: event.PhysicalResourceId };
    const stored = await readKeySet();
    const set = stored ?? (await newKeySet());
    await publish(set);
    if (!stored) await store(set);
    return { PhysicalResourceId: 'jwt-key-set', Data: { ActiveKid: set.activeKid } };
  }
  const set = await readKeySet();
  if (!set) throw new Error('the secret holds no key set; deploy the stack first');
  const next = await rotate(set, event);
  await publish(next);
  await store(next);
  return { activeKid: next.activeKid, kids: next.keys.map((key) => key.kid) };
};

async function rotate(set: KeySetDocument, step: Rotation): Promise<KeySetDocument> {
  switch (step.action) {
    case 'add':
      return addKey(set);
    case 'activate':
      return activateKey(set, step.kid);
    case 'retire':
      return retireKey(set, step.kid);
    default:
      throw new Error(`unknown action ${JSON.stringify((step as { action?: unknown }).action)}`);
  }
}

function env(name: 'JWT_SIGNING_SECRET_ID' | 'JWT_PUBLIC_KEYS_PARAMETER'): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

async function readKeySet(): Promise<KeySetDocument | undefined> {
  const { SecretString } = await secrets.send(new GetSecretValueCommand({ SecretId: env('JWT_SIGNING_SECRET_ID') }));
  try {
    const set = JSON.parse(SecretString ?? '') as Partial<KeySetDocument>;
    return Array.isArray(set.keys) && set.keys.some((key) => key.kid === set.activeKid)
      ? (set as KeySetDocument)
      : undefined;
  } catch {
    return undefined; // the random value the secret was created with
  }
}

async function publish(set: KeySetDocument): Promise<void> {
  const jwks = JSON.stringify({ keys: set.keys.map(publicJwk) });
  await ssm.send(new PutParameterCommand({ Name: env('JWT_PUBLIC_KEYS_PARAMETER'), Value: jwks, Overwrite: true }));
}

async function store(set: KeySetDocument): Promise<void> {
  await secrets.send(
    new PutSecretValueCommand({ SecretId: env('JWT_SIGNING_SECRET_ID'), SecretString: JSON.stringify(set) }),
  );
}
