/**
 * For bundling in place of `@smithy/core/event-streams`, by an esbuild alias beside the credential one in
 * FUNCTION_BUNDLING (infra/aws/constructs/function-bundle.ts; proposed in bench/RESULTS.md, P1, not wired yet).
 *
 * No operation the functions call has an event stream (DynamoDB, SQS, EventBridge, Secrets Manager, KMS, SSM), yet
 * every SDK client reaches that module through one dynamic `import()` in @smithy/core's HttpProtocol. Bundling into
 * one file, esbuild turns the target of a dynamic import, and every module it depends on, into lazily initialised
 * wrappers: about 160 of @smithy/core's modules, most of which each client loads at once anyway, so each of them is
 * compiled twice at every cold start. In their place this module ends the graph there, and an operation with an
 * event stream fails at its first use instead of going out unreadable.
 */
const UNSUPPORTED =
  'event streams are not bundled into the functions (shared/adapters/aws/no-event-streams.ts): no operation they call has one';

export class EventStreamSerde {
  constructor() {
    throw new Error(UNSUPPORTED);
  }
}

export function eventStreamSerdeProvider(): never {
  throw new Error(UNSUPPORTED);
}
