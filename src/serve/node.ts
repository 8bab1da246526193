/**
 * Node entry. First turns on Node's module compile cache (the compiled code of the service and its
 * dependencies kept on disk, by default under the system's temporary directory, so that a later start skips
 * compiling them: docs/deployment.md measures it), for this thread and, through the environment, the publisher's
 * worker thread; then, to serve, starts the publisher's thread (src/content/warm-publisher.ts) while it loads the app,
 * and starts node:http in front of the app (node-server.ts). A cache that cannot be written (a read-only file
 * system) only means compiling again.
 */
import './utc-clock.ts';
import { constants, enableCompileCache } from 'node:module';

const cache = enableCompileCache();
if (cache.status === constants.compileCacheStatus.ENABLED && cache.directory) process.env.NODE_COMPILE_CACHE ??= cache.directory;
// Serving (no subcommand), the publisher's thread starts before the app's modules load, beside them.
const command = process.argv[2];
if (command === undefined || command.startsWith('-')) await (await import('../content/warm-publisher.ts')).warmPublisher();
await import('./node-server.ts');
