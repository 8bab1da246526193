/**
 * Bun entry: Bun.serve in front of the Fetch handler.
 */
import { serveOnBun } from './bun-serve.ts';

await serveOnBun('bun', process.argv.slice(2));
