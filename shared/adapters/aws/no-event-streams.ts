/**
 * Bundled in place of `@smithy/core/event-streams` by an esbuild alias in FUNCTION_BUNDLING
 * (infra/aws/constructs/function-bundle.ts, NO_EVENT_STREAMS; bench/RESULTS.md, P1).
 *
 * No operation the functions call has an event stream (DynamoDB, SQS, EventBridge, Secrets Manager, KMS, SSM; S3 goes
 * through shared/adapters/s3/s3-rest.ts), yet every SDK client reaches that module through one dynamic `import()` in
 * @smithy/core's HttpProtocol. Bundling into one file, esbuild turns the target of a dynamic import, and every module
 * it depends on, into lazily initialised wrappers: about 160 of @smithy/core's modules, most of which each client
 * loads at once anyway, so each of them is compiled twice at every cold start. In their place this module ends the
 * graph there.
 *
 * It keeps what a client touches when it is built or sends a request without an event stream, so any SDK client
 * still constructs, serialises, signs and presigns as with the real module:
 * - `resolveEventStreamSerdeConfig`, which clients with event-stream operations (S3: SelectObjectContent) call in
 *   their constructor, sets `eventStreamMarshaller` from the config's provider, as the real one does;
 * - `eventStreamSerdeProvider`, those clients' default provider (their runtimeConfig), gives a marshaller that
 *   refuses to serialise or deserialise;
 * - `EventStreamSerde`, which HttpProtocol builds only for an operation with an event stream, refuses to be built.
 * An operation with an event stream so fails at its first use with UNSUPPORTED, instead of going out unreadable.
 * Any other name imported statically from the module fails the build (esbuild: no matching export).
 */
export const UNSUPPORTED =
  'event streams are not bundled into the functions (shared/adapters/aws/no-event-streams.ts): no operation they call has one';

/** The shape of `@smithy/types`' EventStreamMarshaller, every method refusing. */
export interface NoEventStreamMarshaller {
  serialize(input: unknown, serializer: unknown): never;
  deserialize(body: unknown, deserializer: unknown): never;
}

const NO_MARSHALLER: NoEventStreamMarshaller = Object.freeze({
  serialize(): never {
    throw new Error(UNSUPPORTED);
  },
  deserialize(): never {
    throw new Error(UNSUPPORTED);
  },
});

/** A client's default event-stream serde provider: a marshaller that refuses every event stream. */
export function eventStreamSerdeProvider(_options?: unknown): NoEventStreamMarshaller {
  return NO_MARSHALLER;
}

/** As `@smithy/core/event-streams`' own: the config with `eventStreamMarshaller` from its provider, in place. */
export function resolveEventStreamSerdeConfig<T extends { eventStreamSerdeProvider: (input: T) => unknown }>(
  input: T,
): T & { eventStreamMarshaller: unknown } {
  return Object.assign(input, { eventStreamMarshaller: input.eventStreamSerdeProvider(input) });
}

export class EventStreamSerde {
  constructor(_options?: unknown) {
    throw new Error(UNSUPPORTED);
  }
}
