/**
 * The runtime behaviour page reuse relies on: on Node and Deno the server is node:http, and the adapter hands an
 * answer's bytes back for the next pages once `res.end`'s callback has run (src/serve/node-adapter.ts,
 * AppResponse.release). That is safe only if the runtime has taken the bytes (sent them, or copied them) by
 * then. Node documents it; Deno's node:http does not, so this checks it on the versions installed here: a
 * 32 MB body, far more than the socket buffers hold, is written over the moment the callback runs, while the
 * client holds off reading; every byte the client then reads must still be the original one.
 *
 * On Bun the server is Bun.serve, through `App.fetch`, which hands a page back as soon as the Response is made
 * from it (src/app.ts): safe because a Response holds a copy (the Fetch standard's "extract a body" copies a
 * BufferSource). Checked the same way: 32 MB written over right after the Response is made, read slowly.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { RUNTIMES } from './helpers/server.ts';

const PROBE = fileURLToPath(new URL('./helpers/end-callback-probe.ts', import.meta.url));
const RESPONSE_PROBE = fileURLToPath(new URL('./helpers/response-copy-probe.ts', import.meta.url));
const BODY_BYTES = 32 << 20;

/** The command that runs the probe on a runtime whose server is node:http. */
const PROBE_COMMANDS = {
  node: [RUNTIMES.node[0], PROBE],
  deno: [RUNTIMES.deno[0], 'run', '--allow-net', PROBE],
} as const;

/** Reads one answer slowly: a pause after the first bytes, then the rest. Resolves with the body's bytes that are not `a`. */
function readSlowly(port: number, pauseMs: number): Promise<{ bodyBytes: number; wrong: number; finishedMs: number }> {
  const began = performance.now();
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let head = Buffer.alloc(0);
    let inBody = false;
    let bodyBytes = 0;
    let wrong = 0;
    let paused = false;
    const timer = setTimeout(() => { socket.destroy(); reject(new Error('no whole answer within 60 s')); }, 60_000);
    socket.on('connect', () => socket.write('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
    socket.on('data', (chunk: Buffer) => {
      let body = chunk;
      if (!inBody) {
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf('\r\n\r\n');
        if (end < 0) return;
        inBody = true;
        body = head.subarray(end + 4);
      }
      for (let k = 0; k < body.length; k++) if (body[k] !== 0x61) wrong++;
      bodyBytes += body.length;
      if (!paused) {
        paused = true;
        socket.pause();
        setTimeout(() => socket.resume(), pauseMs);
      }
    });
    socket.on('end', () => { clearTimeout(timer); resolve({ bodyBytes, wrong, finishedMs: performance.now() - began }); });
    socket.on('error', (err) => { clearTimeout(timer); reject(err); });
  });
}

/** Starts a probe server and resolves once it prints its port; `output()` is what it has printed so far. */
async function startProbe(cmd: string, args: readonly string[]): Promise<{ child: ReturnType<typeof spawn>; port: number; output: () => string }> {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  try {
    const port = await new Promise<number>((resolve, reject) => {
      const poll = setInterval(() => {
        const m = /PORT (\d+)/.exec(out);
        if (m) { clearInterval(poll); resolve(Number(m[1])); }
      }, 20);
      child.once('exit', (code) => { clearInterval(poll); reject(new Error(`the probe exited with ${code}: ${err}`)); });
    });
    return { child, port, output: () => out };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
}

for (const [runtime, [cmd, ...args]] of Object.entries(PROBE_COMMANDS)) {
  test(`on ${runtime}, bytes written over after res.end's callback never reach the client`, async () => {
    const { child, port, output } = await startProbe(cmd, args);
    try {
      const { bodyBytes, wrong } = await readSlowly(port, 1000);
      assert.equal(bodyBytes, BODY_BYTES, 'the whole body arrived');
      assert.equal(wrong, 0, `${wrong} bytes arrived written over: ${runtime}'s end callback ran before it had taken the body`);
      // The callback ran (once the body was taken); otherwise pages would never be handed back on this runtime.
      await new Promise((r) => setTimeout(r, 200));
      assert.match(output(), /CALLBACK \d+/, `${runtime} called end's callback`);
    } finally {
      child.kill('SIGKILL');
    }
  });
}

test('on bun, bytes written over once a Response is made from them never reach the client', async () => {
  const { child, port } = await startProbe(RUNTIMES.bun[0], [RESPONSE_PROBE]);
  try {
    const { bodyBytes, wrong } = await readSlowly(port, 1000);
    assert.equal(bodyBytes, BODY_BYTES, 'the whole body arrived');
    assert.equal(wrong, 0, `${wrong} bytes arrived written over: bun's Response kept the bytes it was given rather than a copy`);
  } finally {
    child.kill('SIGKILL');
  }
});
