import { type Config, config as readConfig } from '#shared/config/env';
import { type Clock, systemClock } from '#shared/ports/clock';
import { type IdGenerator, ulidIds } from '#shared/ports/ids';
import { instance } from './instances.ts';

/** The configuration, as every use case reads it. */
export function config(): Config {
  return readConfig();
}

export function clock(): Clock {
  return instance(clock, () => systemClock);
}

export function ids(): IdGenerator {
  return instance(ids, ulidIds);
}

/** SDK defaults for every AWS client: bounded retries and timeouts, the endpoint the stack configured. */
export function awsClientOptions(endpoint: string | undefined, requestTimeout = 5_000) {
  return {
    region: config().aws.region,
    endpoint,
    maxAttempts: 3,
    requestHandler: { connectionTimeout: 1_000, requestTimeout },
  };
}
