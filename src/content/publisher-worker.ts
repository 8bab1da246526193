/**
 * The publisher's worker thread: opens the store with the options it was given, then runs each operation the
 * serving thread calls (over RpcPeer, src/utils/rpc.ts), one at a time, and answers with plain data: a payload's
 * bytes moved, not copied, or put in shared memory here when the caller wants them shared. A refused bundle crosses
 * as its problems (encodePublisherError); any other error as its message and code.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { collectGarbage } from './collect-garbage.ts';
import { inSharedMemory, PAYLOAD_PARTS } from './journey.ts';
import type { ModelPayload } from './model/model-cache.ts';
import { ownBytes } from '../utils/bytes.ts';
import { RpcPeer } from '../utils/rpc.ts';
import { OPEN_METHOD } from './warm-publisher.ts';
import { encodePublisherError, Publisher, PUBLISHER_NICENESS, type PublishProgress, type PublisherOptions, type PublisherPort } from './publisher.ts';

/**
 * How the serving thread calls: `shared`, a payload in the answer is wanted in shared memory (serving threads view
 * its bytes), copied here, off the serving thread, so that thread never holds a second copy.
 */
export interface CallOptions { shared: boolean }

/**
 * Lowers this thread's priority (Linux: a thread has an id of its own, which `setpriority` takes, so only the
 * publisher is niced, never the serving thread). A publish is CPU-bound for seconds; on a machine (or a
 * container's CPU quota) where it shares a core with the serving thread, the scheduler would otherwise split
 * the core evenly and every request would wait. Where thread ids cannot be found, nothing changes.
 */
function lowerPriority(): void {
  // Deno grants /proc only with --allow-all (and would ask at a terminal): there the thread keeps its priority.
  if ('Deno' in globalThis) return;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isSafeInteger(tid) && tid > 0) setPriority(tid, PUBLISHER_NICENESS);
  } catch {
    // not Linux, or not allowed: the thread keeps the process's priority
  }
}
lowerPriority();

const port = parentPort!;
const peer = new RpcPeer(port, { encodeError: encodePublisherError });

/** Opens the store; the calls wait for it. */
function open(options: PublisherOptions): Promise<Publisher> {
  return Publisher.open(options).then((p) => {
    p.onProgress = (progress: PublishProgress) => peer.emit('progress', progress);
    return p;
  });
}

// A thread started with its options opens the store at once; one started early (warm-publisher.ts) waits for `open`.
let opening: Promise<Publisher> | null = workerData ? open(workerData as PublisherOptions) : null;
let queue: Promise<unknown> = opening?.catch(() => {}) ?? Promise.resolve();

peer.serve((method, [options, ...args]) => {
  if (method === OPEN_METHOD) {
    if (opening) return Promise.reject(new Error('the publisher thread was given its options already'));
    opening = open(args[0] as PublisherOptions);
    queue = opening.catch(() => {});
    return opening.then(() => ({ result: null, transfer: [] }));
  }
  const run = queue.then(async () => {
    if (!opening) throw new Error('the publisher thread was not given its options');
    const publisher = await opening;
    const result = await (publisher[method as keyof PublisherPort] as (...a: unknown[]) => Promise<unknown>).apply(publisher, args);
    // A payload's bytes (records, tables and spatial indexes) move to the serving thread instead of being copied;
    // or, wanted shared, are copied into shared memory here and the thread views them.
    const holder = (result as { payload?: Partial<ModelPayload> } | null)?.payload ?? (result as Partial<ModelPayload> | null);
    const transfer: ArrayBuffer[] = [];
    for (const key of PAYLOAD_PARTS) {
      const bytes = holder?.[key];
      if (!holder || !bytes) continue;
      if ((options as CallOptions).shared) {
        holder[key] = inSharedMemory(bytes);
        continue;
      }
      holder[key] = ownBytes(bytes);
      transfer.push(holder[key].buffer as ArrayBuffer);
    }
    if (method === 'stage' || method === 'prepare' || method === 'serveCurrent') collectGarbage();
    // Deno's parentPort has no close(): there the thread ends when the serving thread terminates it, as it does after this answer.
    if (method === 'close') setImmediate(() => (port as { close?: () => void }).close?.());
    return { result, transfer };
  });
  queue = run.catch(() => {});
  return run;
});
