import { afterAll, expect } from 'vitest';
import { flushExchanges, recordApiExchanges } from './openapi-recorder.ts';

// A setup file of the integration and e2e projects: every API exchange of the test file is checked against
// openapi.json, and the file fails when one breaks it (CONTRACT §19).
recordApiExchanges();

afterAll(async () => {
  const violations = await flushExchanges(expect.getState().testPath ?? 'unknown');
  expect(violations, 'exchanges that break openapi.json').toEqual([]);
});
