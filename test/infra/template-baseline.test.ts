import { describe, expect, it } from 'vitest';
import {
  type Baseline,
  committedBaseline,
  currentBaseline,
  type Difference,
  differences,
  summary,
} from '#infra/aws/template-baseline';

/**
 * The differences from the committed baseline (test/infra/template-baseline.json) that a change intends, each named
 * with why. A change that alters a template lists each resource it adds, removes or changes here; a difference not
 * listed fails the test, and so does an entry that no longer happens. Once the change is merged,
 * `npm run templates:baseline` writes the new baseline and this list is emptied.
 */
const INTENDED: readonly (Omit<Difference, 'before' | 'after'> & { why: string })[] = [];

const named = (difference: Omit<Difference, 'before' | 'after'>) => (intended: (typeof INTENDED)[number]) =>
  intended.configuration === difference.configuration &&
  intended.template === difference.template &&
  intended.logicalId === difference.logicalId;

describe('the synthesized templates, held to their baseline', () => {
  it('keeps every resource, logical id and property that matters of the documented configurations, but the differences named', () => {
    const found = differences(committedBaseline(), currentBaseline());

    expect(found.filter((difference) => !INTENDED.some(named(difference)))).toEqual([]);
    expect(INTENDED.filter((intended) => !found.some((difference) => named(difference)(intended)))).toEqual([]);
  });

  it('finds a resource added, removed, retyped, or changed in a property that matters, and nothing else', () => {
    const fn = (variables: Record<string, string>, timeout = 10) => ({
      Type: 'AWS::Lambda::Function',
      Properties: { Environment: { Variables: variables }, Timeout: timeout, Code: { S3Key: 'a.zip' } },
    });
    const before: Baseline = {
      dev: { Service: { A: summary(fn({ X: '1' })), B: 'AWS::SQS::Queue', C: 'AWS::SNS::Topic' } },
    };
    const after: Baseline = {
      dev: {
        Service: {
          // The same variable names with another value, and another asset: no difference.
          A: summary({ ...fn({ X: '2' }), Properties: { ...fn({ X: '2' }).Properties, Code: { S3Key: 'b.zip' } } }),
          B: 'AWS::SQS::Queue visibility=180',
          D: 'AWS::SNS::Topic',
        },
      },
    };

    expect(summary(fn({ Y: '1', X: '1' }, 30))).toBe('AWS::Lambda::Function env=X,Y timeout=30');
    expect(differences(before, after).map(({ logicalId, before: was, after: is }) => [logicalId, was, is])).toEqual([
      ['B', 'AWS::SQS::Queue', 'AWS::SQS::Queue visibility=180'],
      ['C', 'AWS::SNS::Topic', undefined],
      ['D', undefined, 'AWS::SNS::Topic'],
    ]);
  });
});
