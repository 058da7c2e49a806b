import { clearExchanges, summariseExchanges } from './openapi-recorder.ts';

/** Global setup of the integration project: sums up the openapi.json validation of its exchanges at the end. */
export function setup() {
  clearExchanges('test/integration/');
}

export function teardown() {
  summariseExchanges('test/integration/', 'integration');
}
