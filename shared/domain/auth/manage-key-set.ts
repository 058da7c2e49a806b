import { activateKey, addKey, newKeySet, retireKey } from '#shared/auth/key-set';
import type { KeySetDocument } from '#shared/ports/key-store';

/** Where the key set lives on AWS: the private set (a secret) and its public JWKS (a parameter). */
export interface KeySetRepository {
  /** The stored key set, or undefined while the secret still holds its initial random value. */
  read(): Promise<KeySetDocument | undefined>;
  publish(set: KeySetDocument): Promise<void>;
  /** Removes the published JWKS (a disposable stack's deletion); absent is fine. */
  unpublish(): Promise<void>;
  store(set: KeySetDocument): Promise<void>;
}

export type KeyRotationStep = { action: 'add' } | { action: 'activate' | 'retire'; kid: string };

/**
 * Creates the key set on the first deploy (never replacing one), and republishes its JWKS on every deploy.
 * The public JWKS is always written before the secret, so no token is ever signed with an unpublished key.
 */
export async function ensureKeySet(repository: KeySetRepository): Promise<KeySetDocument> {
  const stored = await repository.read();
  const set = stored ?? (await newKeySet());
  await repository.publish(set);
  if (!stored) await repository.store(set);
  return set;
}

/**
 * One rotation step (docs/operations.md): `add` publishes a new key, `activate` makes it sign once verifiers have seen
 * it, `retire` drops the old key once its tokens have expired.
 */
export async function rotateKeySet(repository: KeySetRepository, step: KeyRotationStep): Promise<KeySetDocument> {
  const set = await repository.read();
  if (!set) throw new Error('the secret holds no key set; deploy the stack first');
  const next = await applyStep(set, step);
  await repository.publish(next);
  await repository.store(next);
  return next;
}

async function applyStep(set: KeySetDocument, step: KeyRotationStep): Promise<KeySetDocument> {
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

/** A CloudFormation custom-resource event for the key set, as the stack sends it. */
export interface KeySetStackEvent {
  RequestType: 'Create' | 'Update' | 'Delete';
  PhysicalResourceId?: string;
  ResourceProperties?: { RemoveOnDelete?: string };
}

/**
 * The JWT key set's keeper: the stack's custom resource (Create/Update publish; Delete removes the published keys of
 * a disposable stack, and keeps them otherwise), or an operator's rotation step.
 */
export async function keepKeySet(repository: KeySetRepository, event: KeySetStackEvent | KeyRotationStep) {
  if (!('RequestType' in event)) {
    const set = await rotateKeySet(repository, event);
    return { activeKid: set.activeKid, kids: set.keys.map((key) => key.kid) };
  }
  if (event.RequestType === 'Delete') {
    if (event.ResourceProperties?.RemoveOnDelete === 'true') await repository.unpublish();
    return { PhysicalResourceId: event.PhysicalResourceId };
  }
  const set = await ensureKeySet(repository);
  return { PhysicalResourceId: 'jwt-key-set', Data: { ActiveKid: set.activeKid } };
}
