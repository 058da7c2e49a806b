import { describe, expect, it } from 'vitest';
import { applied } from '#shared/adapters/dynamodb/client';

const failure = (name: string) => Object.assign(new Error(name), { name });

describe('applied (a conditional write’s outcome)', () => {
  it('is true when the write went through', async () => {
    expect(await applied(Promise.resolve({}))).toBe(true);
  });

  it('is false when the write’s condition failed', async () => {
    expect(await applied(Promise.reject(failure('ConditionalCheckFailedException')))).toBe(false);
  });

  it('rethrows every other error', async () => {
    await expect(applied(Promise.reject(failure('ProvisionedThroughputExceededException')))).rejects.toThrow(
      'ProvisionedThroughputExceededException',
    );
  });
});
