/**
 * HTTP/1.1 over raw node:net sockets, for probes that must send bytes no HTTP client would (odd methods, raw
 * bytes in the target, broken headers) and see exactly what came back, or that nothing did. One request at a
 * time per socket (keep-alive, no pipelining); the answer is read with a small parser: the status line, the
 * headers, then a Content-Length body, a chunked body, or a body up to the close (no body for HEAD, 1xx, 204
 * and 304). Used by fuzz.ts and shutdown.ts; it has no CLI.
 */
import { connect, type Socket } from 'node:net';

/** An answer as received (header names lower-cased; repeated headers joined with ", "). */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** The server said `Connection: close` (or answered HTTP/1.0 without keep-alive). */
  close: boolean;
}

/** Why a request got no answer. */
export type NoAnswer =
  /** The server closed the connection (FIN) before a complete answer. */
  | 'closed'
  /** The connection was reset (ECONNRESET, EPIPE). */
  | 'reset'
  /** No complete answer within the request's time limit. */
  | 'timeout'
  /** The answer could not be parsed. */
  | 'unparsable'
  /** Connecting failed (ECONNREFUSED and the like). */
  | 'refused';

/** A failed request: why, and the underlying error code or message. */
export class NoAnswerError extends Error {
  readonly reason: NoAnswer;
  constructor(reason: NoAnswer, detail: string) {
    super(`${reason}: ${detail}`);
    this.name = 'NoAnswerError';
    this.reason = reason;
  }
}

/** The most header bytes accepted from a server before the answer counts as unparsable. */
const MAX_HEAD_BYTES = 256 * 1024;

/**
 * An incremental parser of one answer. `push` feeds bytes; it returns the answer once complete (with any bytes
 * past it, which a keep-alive server never sends unasked), or null while more is needed. `end` is called when
 * the server closed: an answer delimited by the close completes there.
 */
export class AnswerParser {
  private buffer: Buffer = Buffer.alloc(0);
  private head: { status: number; headers: Record<string, string>; close: boolean } | null = null;
  private mode: 'length' | 'chunked' | 'close' | 'none' = 'none';
  private remaining = 0;
  private chunks: Buffer[] = [];
  private chunkState: 'size' | 'data' | 'crlf' | 'trailers' = 'size';
  private readonly noBody: boolean;

  /** `method`: the request's method (a HEAD answer has no body). */
  constructor(method: string) {
    this.noBody = method.toUpperCase() === 'HEAD';
  }

  push(data: Buffer): RawAnswer | null {
    this.buffer = this.buffer.length === 0 ? data : Buffer.concat([this.buffer, data]);
    if (!this.head && !this.readHead()) return null;
    return this.readBody();
  }

  /** The server closed: the answer, if the close is what ends it; else null (an incomplete answer). */
  end(): RawAnswer | null {
    if (this.head && this.mode === 'close') return this.finish(Buffer.concat([...this.chunks, this.buffer]));
    return null;
  }

  /** Parses the status line and the headers; false while they are incomplete. Skips 1xx interim answers. */
  private readHead(): boolean {
    for (;;) {
      const end = this.buffer.indexOf('\r\n\r\n');
      if (end < 0) {
        if (this.buffer.length > MAX_HEAD_BYTES) throw new NoAnswerError('unparsable', `no end of headers in ${this.buffer.length} bytes`);
        return false;
      }
      const lines = this.buffer.subarray(0, end).toString('latin1').split('\r\n');
      this.buffer = this.buffer.subarray(end + 4);
      const m = /^HTTP\/(1\.[01]) (\d{3})(?: .*)?$/.exec(lines[0]);
      if (!m) throw new NoAnswerError('unparsable', `status line ${JSON.stringify(lines[0].slice(0, 80))}`);
      const status = Number(m[2]);
      const headers: Record<string, string> = {};
      for (const line of lines.slice(1)) {
        const at = line.indexOf(':');
        if (at <= 0) throw new NoAnswerError('unparsable', `header line ${JSON.stringify(line.slice(0, 80))}`);
        const name = line.slice(0, at).trim().toLowerCase();
        const value = line.slice(at + 1).trim();
        headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
      }
      // 100 Continue and friends precede the real answer.
      if (status >= 100 && status < 200 && status !== 101) continue;
      const connection = (headers.connection ?? '').toLowerCase();
      const close = connection.includes('close') || (m[1] === '1.0' && !connection.includes('keep-alive'));
      this.head = { status, headers, close };
      if (this.noBody || status === 204 || status === 304 || status === 101) this.mode = 'none';
      else if ((headers['transfer-encoding'] ?? '').toLowerCase().includes('chunked')) this.mode = 'chunked';
      else if (headers['content-length'] !== undefined) {
        const n = Number(headers['content-length']);
        if (!Number.isInteger(n) || n < 0) throw new NoAnswerError('unparsable', `content-length ${headers['content-length']}`);
        this.mode = 'length';
        this.remaining = n;
      } else this.mode = 'close';
      return true;
    }
  }

  /** Reads as much of the body as has come; the answer once it is whole. */
  private readBody(): RawAnswer | null {
    if (this.mode === 'none') return this.finish(Buffer.alloc(0));
    if (this.mode === 'length') {
      if (this.buffer.length < this.remaining) return null;
      const body = this.buffer.subarray(0, this.remaining);
      this.buffer = this.buffer.subarray(this.remaining);
      return this.finish(body);
    }
    if (this.mode === 'close') {
      this.chunks.push(this.buffer);
      this.buffer = Buffer.alloc(0);
      return null;
    }
    // Chunked: size line, data, CRLF, ..., a zero size, trailers, an empty line.
    for (;;) {
      if (this.chunkState === 'size' || this.chunkState === 'trailers') {
        const eol = this.buffer.indexOf('\r\n');
        if (eol < 0) return null;
        const line = this.buffer.subarray(0, eol).toString('latin1');
        this.buffer = this.buffer.subarray(eol + 2);
        if (this.chunkState === 'trailers') {
          if (line === '') return this.finish(Buffer.concat(this.chunks));
          continue;
        }
        const size = parseInt(line.split(';')[0].trim(), 16);
        if (!Number.isFinite(size) || size < 0) throw new NoAnswerError('unparsable', `chunk size ${JSON.stringify(line.slice(0, 40))}`);
        if (size === 0) this.chunkState = 'trailers';
        else {
          this.remaining = size;
          this.chunkState = 'data';
        }
      } else if (this.chunkState === 'data') {
        if (this.buffer.length < this.remaining) return null;
        this.chunks.push(this.buffer.subarray(0, this.remaining));
        this.buffer = this.buffer.subarray(this.remaining);
        this.chunkState = 'crlf';
      } else {
        if (this.buffer.length < 2) return null;
        this.buffer = this.buffer.subarray(2);
        this.chunkState = 'size';
      }
    }
  }

  private finish(body: Buffer): RawAnswer {
    const head = this.head!;
    return { status: head.status, headers: head.headers, body, close: head.close };
  }
}

/** Maps a socket error to why the request got no answer. */
function reasonOf(err: NodeJS.ErrnoException): NoAnswer {
  if (err.code === 'ECONNREFUSED' || err.code === 'EADDRNOTAVAIL' || err.code === 'EMFILE') return 'refused';
  return 'reset';
}

/**
 * One keep-alive connection to 127.0.0.1:`port`: `send` writes a request's bytes and resolves with the answer,
 * or rejects with a NoAnswerError. After a `Connection: close` answer or any failure the connection is gone, and
 * `open` is false: make a new one.
 */
export class RawConnection {
  readonly socket: Socket;
  /** True once connected; false again once the socket has closed or failed. */
  open = false;
  /** Answers received on this connection. */
  answered = 0;
  private pending: { parser: AnswerParser; resolve(a: RawAnswer): void; reject(e: Error): void; timer: NodeJS.Timeout } | null = null;
  private readonly ready: Promise<void>;

  constructor(port: number, host = '127.0.0.1') {
    this.socket = connect({ port, host, noDelay: true });
    this.ready = new Promise((resolve, reject) => {
      this.socket.once('connect', () => { this.open = true; resolve(); });
      this.socket.once('error', (err: NodeJS.ErrnoException) => {
        if (!this.open) reject(new NoAnswerError(reasonOf(err), err.code ?? err.message));
      });
    });
    // Rejections before anyone awaits `connected()` are handled there; this keeps them from being reported as unhandled.
    this.ready.catch(() => {});
    this.socket.on('data', (data: Buffer) => this.onData(data));
    this.socket.on('error', (err: NodeJS.ErrnoException) => this.fail(new NoAnswerError(reasonOf(err), err.code ?? err.message)));
    this.socket.on('end', () => {
      // The server's FIN: no further request goes on this connection. An answer delimited by the close completes
      // here; anything else pending is lost.
      this.open = false;
      const p = this.pending;
      if (p) {
        try {
          const answer = p.parser.end();
          if (answer) return this.settle(answer);
        } catch (err) {
          return this.fail(err as Error);
        }
      }
      this.fail(new NoAnswerError('closed', 'the server closed the connection'));
    });
    this.socket.on('close', () => {
      this.open = false;
      this.fail(new NoAnswerError('closed', 'the connection closed'));
    });
  }

  /** Resolves once connected; rejects (NoAnswerError 'refused' or 'reset') if connecting failed. */
  connected(): Promise<void> {
    return this.ready;
  }

  /** Sends one request (its bytes, as they go on the wire) and waits for the answer, at most `timeoutMs`. */
  send(bytes: Buffer, method: string, timeoutMs: number): Promise<RawAnswer> {
    if (this.pending) return Promise.reject(new Error('a request is already in flight on this connection'));
    if (!this.open) return Promise.reject(new NoAnswerError('closed', 'the connection is not open'));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.fail(new NoAnswerError('timeout', `no answer in ${timeoutMs} ms`)), timeoutMs);
      this.pending = { parser: new AnswerParser(method), resolve, reject, timer };
      this.socket.write(bytes);
    });
  }

  /** Closes the connection (no wait). */
  destroy(): void {
    this.open = false;
    this.socket.destroy();
  }

  private onData(data: Buffer): void {
    const p = this.pending;
    // Bytes nobody asked for (after a timeout, or an unsolicited answer): the connection is no longer usable.
    if (!p) {
      this.destroy();
      return;
    }
    try {
      const answer = p.parser.push(data);
      if (answer) this.settle(answer);
    } catch (err) {
      this.fail(err as Error);
    }
  }

  private settle(answer: RawAnswer): void {
    const p = this.pending!;
    clearTimeout(p.timer);
    this.pending = null;
    this.answered++;
    if (answer.close) {
      // The server will close; no further request goes on this connection.
      this.open = false;
      this.socket.end();
    }
    p.resolve(answer);
  }

  private fail(err: Error): void {
    const p = this.pending;
    if (!p) return;
    clearTimeout(p.timer);
    this.pending = null;
    this.destroy();
    p.reject(err);
  }
}

/** A request's bytes: `METHOD target HTTP/1.1`, the headers given (Host first unless given), an empty line and the body. */
export function requestBytes(method: string, target: string | Buffer, headers: [string, string | Buffer][], body?: Buffer): Buffer {
  const parts: Buffer[] = [Buffer.from(`${method} `, 'latin1'), typeof target === 'string' ? Buffer.from(target, 'utf8') : target,
    Buffer.from(' HTTP/1.1\r\n', 'latin1')];
  for (const [name, value] of headers) {
    parts.push(Buffer.from(`${name}: `, 'latin1'), typeof value === 'string' ? Buffer.from(value, 'utf8') : value, Buffer.from('\r\n', 'latin1'));
  }
  parts.push(Buffer.from('\r\n', 'latin1'));
  if (body) parts.push(body);
  return Buffer.concat(parts);
}
