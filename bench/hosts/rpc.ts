/**
 * A tiny request/response protocol over a forked child's IPC channel, so that the sandbox and
 * dynalite can run in their own processes: the bench process then measures only the bridge's own
 * CPU time (process.cpuUsage), and the two share the machine's cores the way separate hosts would.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

interface RpcRequest {
  readonly id: number;
  readonly method: string;
  readonly args: unknown[];
}

interface RpcResponse {
  readonly id: number;
  readonly ok: boolean;
  readonly value?: unknown;
  readonly error?: string;
}

export class HostError extends Error {
  override readonly name = 'HostError';
}

export type Handlers = Record<string, (...args: never[]) => unknown>;

/** Child side: answers requests with the handlers; exits when the parent goes away. */
export function serveHost(handlers: Handlers): void {
  if (!process.send) throw new HostError('serveHost must run in a forked child process');
  process.on('message', async (message: RpcRequest) => {
    const handler = handlers[message.method] as ((...args: unknown[]) => unknown) | undefined;
    let response: RpcResponse;
    try {
      if (!handler) throw new HostError(`unknown host method '${message.method}'`);
      response = { id: message.id, ok: true, value: await handler(...message.args) };
    } catch (err) {
      response = { id: message.id, ok: false, error: err instanceof Error ? err.message : String(err) };
    }
    process.send?.(response);
  });
  process.on('disconnect', () => process.exit(0));
}

/** Parent side: a forked child running `entry` (a .ts file, run through tsx). */
export class HostProcess {
  readonly #child: ChildProcess;
  readonly #pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  #nextId = 1;
  #exited = false;

  private constructor(child: ChildProcess) {
    this.#child = child;
    child.on('message', (message: RpcResponse) => {
      const waiter = this.#pending.get(message.id);
      if (!waiter) return;
      this.#pending.delete(message.id);
      if (message.ok) waiter.resolve(message.value);
      else waiter.reject(new HostError(message.error ?? 'host call failed'));
    });
    child.on('exit', (code) => {
      this.#exited = true;
      for (const waiter of this.#pending.values()) {
        waiter.reject(new HostError(`host process exited (code ${code}) before answering`));
      }
      this.#pending.clear();
    });
  }

  static start(entry: URL, maxOldSpaceMb = 4096): HostProcess {
    const child = fork(fileURLToPath(entry), [], {
      execArgv: ['--import', 'tsx', `--max-old-space-size=${maxOldSpaceMb}`],
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    return new HostProcess(child);
  }

  call<T>(method: string, ...args: unknown[]): Promise<T> {
    if (this.#exited) return Promise.reject(new HostError(`host process has exited; cannot call ${method}`));
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.#child.send({ id, method, args } satisfies RpcRequest);
    });
  }

  /** CPU time (user + system) the host process has used so far, ms: every host answers `cpu`. */
  async cpuMs(): Promise<number> {
    const usage = await this.call<NodeJS.CpuUsage>('cpu');
    return (usage.user + usage.system) / 1000;
  }

  async close(): Promise<void> {
    if (this.#exited) return;
    const exited = new Promise<void>((resolve) => this.#child.once('exit', () => resolve()));
    this.#child.disconnect();
    const timer = setTimeout(() => this.#child.kill('SIGTERM'), 5000);
    await exited;
    clearTimeout(timer);
  }
}
