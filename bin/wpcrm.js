#!/usr/bin/env node
// `npx wpcrm` runs the TypeScript source directly: tsx compiles it and resolves the `#shared/*` imports.
import { register } from 'tsx/esm/api';

// Operators may run Node 20; the SDK's end-of-support warning would break the one-JSON-line output on stderr.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
register();
await import('./wpcrm.ts');
