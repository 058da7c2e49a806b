import { describe, expect, it } from 'vitest';
import { matchesPattern } from '#shared/events/pattern';

const event = {
  source: 'wp-crm',
  'detail-type': 'group.created',
  detail: { organisation_id: 'o1', tags: ['a', 'b'], count: 3 },
};

describe('matchesPattern', () => {
  it('matches any of the listed values', () => {
    expect(matchesPattern({ source: ['wp-crm'], 'detail-type': ['group.created', 'report.failed'] }, event)).toBe(true);
    expect(matchesPattern({ 'detail-type': ['report.failed'] }, event)).toBe(false);
  });

  it('matches nested detail fields and array values', () => {
    expect(matchesPattern({ detail: { organisation_id: ['o1'], tags: ['b'] } }, event)).toBe(true);
    expect(matchesPattern({ detail: { organisation_id: ['o2'] } }, event)).toBe(false);
  });

  it('supports prefix, anything-but and exists', () => {
    expect(matchesPattern({ 'detail-type': [{ prefix: 'group.' }] }, event)).toBe(true);
    expect(matchesPattern({ 'detail-type': [{ prefix: 'report.' }] }, event)).toBe(false);
    expect(matchesPattern({ 'detail-type': [{ 'anything-but': ['report.failed'] }] }, event)).toBe(true);
    expect(matchesPattern({ 'detail-type': [{ 'anything-but': 'group.created' }] }, event)).toBe(false);
    expect(matchesPattern({ detail: { missing: [{ exists: false }] } }, event)).toBe(true);
    expect(matchesPattern({ detail: { count: [{ exists: true }] } }, event)).toBe(true);
    expect(matchesPattern({ detail: { missing: [{ exists: true }] } }, event)).toBe(false);
  });
});
