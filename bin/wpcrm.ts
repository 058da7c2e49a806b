import { main } from './cli/main.ts';

// Also set by bin/wpcrm.js; repeated for `npm run wpcrm`, which starts here. The SDK checks it per client.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
process.exitCode = await main(process.argv.slice(2));
