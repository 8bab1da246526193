/**
 * A Bun.serve server that tells whether a Response holds a copy of the bytes it was made from (what `App.fetch`
 * relies on when it hands a page back at once, src/app.ts): each answer is a Response made from 32 MB of `a`,
 * written over with `z` as soon as the Response exists. A client that reads slowly and gets only `a` shows the
 * runtime copied them. Prints `PORT <n>` once listening. Run by tests/body-release.test.ts on Bun.
 */
declare const Bun: { serve(options: { port: number; hostname: string; fetch(req: Request): Response }): { port: number } };

const PROBE_BODY_BYTES = 32 << 20;

const server = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  fetch() {
    const body = new Uint8Array(PROBE_BODY_BYTES).fill(0x61);
    const response = new Response(body, { headers: { 'content-type': 'application/octet-stream' } });
    body.fill(0x7a);
    return response;
  },
});
console.log(`PORT ${server.port}`);
