/**
 * moto_server for the cross-check scripts of this folder: the one at MOTO_ENDPOINT if set, else a
 * moto_server started on a free port of 127.0.0.1 (waited for until it answers), with EventBridge
 * and SQS clients on it (region us-east-1, dummy credentials).
 *
 *   const moto = await startMoto();
 *   try { await moto.eventBridge.send(...); } finally { moto.close(); }
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SQSClient } from '@aws-sdk/client-sqs';

export interface Moto {
  /** http://127.0.0.1:<port>, or MOTO_ENDPOINT. */
  readonly endpoint: string;
  readonly eventBridge: EventBridgeClient;
  readonly sqs: SQSClient;
  /** Stops the moto_server this started (not one given by MOTO_ENDPOINT). */
  close(): void;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function spawnMotoServer(): Promise<{ endpoint: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  const endpoint = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null)
      throw new Error('moto_server exited: is it installed (pip install "moto[server]")?');
    const ok = await fetch(`${endpoint}/moto-api/`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { endpoint, child };
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill();
  throw new Error(`moto_server did not answer on ${endpoint}`);
}

export async function startMoto(): Promise<Moto> {
  const given = process.env.MOTO_ENDPOINT;
  const { endpoint, child } = given ? { endpoint: given, child: undefined } : await spawnMotoServer();
  const config = {
    region: 'us-east-1',
    endpoint,
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
  };
  return {
    endpoint,
    eventBridge: new EventBridgeClient(config),
    sqs: new SQSClient(config),
    close: () => {
      child?.kill();
    },
  };
}
