// One P1 sample: the time to import a bundle in this fresh process, printed in milliseconds.
const started = performance.now();
await import(process.argv[2]);
process.stdout.write(String(performance.now() - started));
