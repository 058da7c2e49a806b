/**
 * How long a secret or key read from AWS is reused (CONTRACT §13: at most 5 minutes). Within that time an
 * operator's update or a key retirement reaches every warm function; a failed read is never cached (Powertools
 * Parameters caches only values it got), so a throttled read does not lock a container out.
 */
export const SECRET_MAX_AGE_SECONDS = 300;

/**
 * The published JWKS is reused for less: bearer-auth also remembers a verified token for a minute, so a retired key
 * stops being accepted within 5 minutes end to end.
 */
export const PUBLIC_KEYS_MAX_AGE_SECONDS = 240;

/** A token with an unknown `kid` makes a warm function re-read the keys at once, at most once a minute. */
export const MIN_FORCED_REFRESH_MS = 60_000;
