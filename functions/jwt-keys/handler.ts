import { keySetRepository } from '#shared/config/keys';
import { type KeyRotationStep, type KeySetStackEvent, keepKeySet } from '#shared/domain/auth/manage-key-set';

/** The stack's custom resource for the JWT key set, and the operator's rotation steps (docs/operations.md). */
export const handler = async (event: KeySetStackEvent | KeyRotationStep) => keepKeySet(keySetRepository(), event);
