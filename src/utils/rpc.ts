/**
 * One small protocol for every thread boundary of the service (the publisher's worker, the serving threads): over a
 * port, each side may call the other's methods and await the answer, and send events that need none. Calls are
 * answered in any order, each by its number; an error crosses as its message, code and whatever `encodeError` adds,
 * and is made an error again by the caller's `decodeError`. Bytes move instead of being copied when a handler names
 * them in `transfer`. A port that closes (its thread exited) fails every call still waiting.
 */

/** A port as every runtime's worker_threads gives one (a Worker, a MessagePort, parentPort). */
export interface RpcPort {
  postMessage(message: unknown, transfer?: readonly ArrayBuffer[]): void;
  // Each runtime's ports type their listeners' argument as any.
  on(event: string, listener: (message: any) => void): unknown;
}

/** An error as it crosses: its message, its code, and what the side that threw it adds (`encodeError`). */
export interface WireError { message: string; code?: string; details?: unknown }

/** What a handler answers: its result, and the buffers to move with it rather than copy. */
export interface Answer { result: unknown; transfer?: ArrayBuffer[] }

type Message =
  | { call: number; method: string; args: unknown[] }
  | { answer: number; result: unknown }
  | { answer: number; error: WireError }
  | { event: string; data: unknown };

/** How a side of a port turns errors into what crosses, and back. */
export interface RpcOptions {
  /** What of a thrown error's crosses besides its message and code (a refused bundle's problems). */
  encodeError?: (err: unknown) => unknown;
  /** The error a caller rejects with, made from what crossed. */
  decodeError?: (wire: WireError) => Error;
}

/** One side of a port: calls the other side, answers its calls, sends and hears events. */
export class RpcPeer {
  private readonly port: RpcPort;
  private readonly options: RpcOptions;
  private next = 1;
  private readonly waiting = new Map<number, { resolve(value: unknown): void; reject(err: Error): void }>();
  private readonly events = new Map<string, (data: never) => void>();
  private handler: ((method: string, args: unknown[]) => Promise<Answer>) | null = null;

  constructor(port: RpcPort, options: RpcOptions = {}) {
    this.port = port;
    this.options = options;
    port.on('message', (message: Message) => this.receive(message));
  }

  /** Calls `method` on the other side; resolves with its result, rejects with its error. */
  call<T>(method: string, ...args: unknown[]): Promise<T> {
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.port.postMessage({ call: id, method, args } satisfies Message);
    });
  }

  /** Answers the other side's calls with `handler`; calls that come before are answered once it is set. */
  serve(handler: (method: string, args: unknown[]) => Promise<Answer>): void {
    this.handler = handler;
  }

  /** Sends an event (no answer), moving `transfer`'s buffers. */
  emit(event: string, data?: unknown, transfer?: ArrayBuffer[]): void {
    this.port.postMessage({ event, data } satisfies Message, transfer);
  }

  /** Hears one kind of event (one listener each). */
  on<T>(event: string, listener: (data: T) => void): void {
    this.events.set(event, listener as (data: never) => void);
  }

  /** Fails every call still waiting (the other side is gone). */
  failAll(err: Error): void {
    for (const w of this.waiting.values()) w.reject(err);
    this.waiting.clear();
  }

  private receive(message: Message): void {
    if ('event' in message) {
      this.events.get(message.event)?.(message.data as never);
    } else if ('call' in message) {
      void this.answer(message);
    } else {
      const waiting = this.waiting.get(message.answer);
      if (!waiting) return;
      this.waiting.delete(message.answer);
      if ('result' in message) waiting.resolve(message.result);
      else waiting.reject(this.options.decodeError?.(message.error) ?? Object.assign(new Error(message.error.message),
        message.error.code ? { code: message.error.code } : {}));
    }
  }

  private async answer(message: { call: number; method: string; args: unknown[] }): Promise<void> {
    try {
      if (!this.handler) throw new Error(`nothing answers ${message.method} here`);
      const { result, transfer } = await this.handler(message.method, message.args);
      this.port.postMessage({ answer: message.call, result } satisfies Message, transfer);
    } catch (err) {
      const e = err as { message?: unknown; code?: unknown } | null;
      const details = this.options.encodeError?.(err);
      this.port.postMessage({ answer: message.call, error: {
        message: typeof e?.message === 'string' ? e.message : String(err),
        ...(e?.code !== undefined ? { code: String(e.code) } : {}),
        ...(details !== undefined ? { details } : {}),
      } } satisfies Message);
    }
  }
}
