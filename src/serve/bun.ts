/**
 * Bun entry: Bun.serve in front of the Fetch handler.
 */
import './utc-clock.ts';
import { serveOnBun } from './bun-serve.ts';

await serveOnBun('bun', process.argv.slice(2));
