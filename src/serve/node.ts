/**
 * Node entry. First turns on Node's module compile cache (the compiled code of the service and its
 * dependencies kept on disk, by default under the system's temporary directory, so that a later start skips
 * compiling them: docs/deployment.md measures it), for this thread and, through the environment, the publisher's
 * worker thread; then starts node:http in front of the app (node-server.ts). A cache that cannot be written
 * (a read-only file system) only means compiling again.
 */
import { constants, enableCompileCache } from 'node:module';

const cache = enableCompileCache();
if (cache.status === constants.compileCacheStatus.ENABLED && cache.directory) process.env.NODE_COMPILE_CACHE ??= cache.directory;
await import('./node-server.ts');
