/**
 * The protocol of every thread boundary (src/utils/rpc.ts), over a real MessageChannel: calls answered out of order
 * reach their callers, errors cross with their code and details, events need no answer, bytes named for transfer
 * move, and a side that goes away fails the calls still waiting.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MessageChannel } from 'node:worker_threads';
import { RpcPeer, type WireError } from '../src/utils/rpc.ts';

function pair(options: { encodeError?: (err: unknown) => unknown; decodeError?: (wire: WireError) => Error } = {}) {
  const { port1, port2 } = new MessageChannel();
  const a = new RpcPeer(port1, { decodeError: options.decodeError });
  const b = new RpcPeer(port2, { encodeError: options.encodeError });
  return { a, b, close: () => { port1.close(); port2.close(); } };
}

test('calls answered out of order each reach their caller', async () => {
  const { a, b, close } = pair();
  b.serve(async (method, [ms, value]) => {
    await new Promise((resolve) => setTimeout(resolve, ms as number));
    return { result: `${method}:${value as string}` };
  });
  try {
    const answers = await Promise.all([a.call('slow', 40, 'first'), a.call('fast', 1, 'second'), a.call('mid', 20, 'third')]);
    assert.deepEqual(answers, ['slow:first', 'fast:second', 'mid:third']);
  } finally {
    close();
  }
});

test('an error crosses with its message, code and details, and the caller makes it an error again', async () => {
  class Refused extends Error {
    readonly problems: string[];
    constructor(problems: string[]) {
      super('refused');
      this.problems = problems;
    }
  }
  const { a, b, close } = pair({
    encodeError: (err) => (err instanceof Refused ? { problems: err.problems } : undefined),
    decodeError: (wire) => ((wire.details as { problems?: string[] })?.problems ? new Refused((wire.details as { problems: string[] }).problems)
      : Object.assign(new Error(wire.message), { code: wire.code })),
  });
  b.serve(async (method) => {
    if (method === 'refuse') throw new Refused(['$.maps: missing']);
    throw Object.assign(new Error('disk full'), { code: 'ENOSPC' });
  });
  try {
    await assert.rejects(a.call('refuse'), (err: unknown) => err instanceof Refused && err.problems[0] === '$.maps: missing');
    await assert.rejects(a.call('write'), (err: Error & { code?: string }) => err.message === 'disk full' && err.code === 'ENOSPC');
  } finally {
    close();
  }
});

test('events need no answer; bytes named for transfer move rather than copy', async () => {
  const { a, b, close } = pair();
  try {
    const heard = new Promise<Uint8Array>((resolve) => b.on<Uint8Array>('bytes', resolve));
    const bytes = new Uint8Array([1, 2, 3]);
    a.emit('bytes', bytes, [bytes.buffer as ArrayBuffer]);
    assert.equal(bytes.byteLength, 0, 'the sender no longer holds them');
    assert.deepEqual([...await heard], [1, 2, 3]);
    b.serve(async () => {
      const out = new Uint8Array([9, 8]);
      return { result: out, transfer: [out.buffer as ArrayBuffer] };
    });
    assert.deepEqual([...await a.call<Uint8Array>('give')], [9, 8]);
  } finally {
    close();
  }
});

test('a call with nothing to answer it fails, and a side that goes away fails the calls still waiting', async () => {
  const { a, b, close } = pair();
  try {
    await assert.rejects(a.call('anything'), /nothing answers anything here/);
    b.serve(() => new Promise(() => {}));
    const waiting = a.call('never');
    a.failAll(new Error('the thread exited (1)'));
    await assert.rejects(waiting, /the thread exited/);
  } finally {
    close();
  }
});
