import type { ChildProcess } from 'node:child_process';
import { statSync } from 'node:fs';
import type { ProxyOptions, SpawnFunction } from './proxy-options.js';
import type { Exit } from './lifecycle.js';

/** The environment the server gets: ours, less the debugger's token. */
function childEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const copy = { ...env };
  // The debugger's token can rewrite tool results; the server under debug never gets it.
  delete copy.GRAPHMIND_TOKEN;
  return copy;
}

/**
 * Start the server's process: resolves with it once it has spawned, or with
 * the error that kept it from starting (thrown by `spawn`, or emitted).
 */
export function startChild(spawn: SpawnFunction, options: ProxyOptions): Promise<ChildProcess | Error> {
  let child: ChildProcess;
  try {
    child = spawn(options.command, options.args ?? [], {
      stdio: ['pipe', 'pipe', options.inheritStderr ? 'inherit' : 'pipe'],
      env: childEnv(options.env ?? process.env),
      windowsHide: true,
    });
  } catch (error) {
    return Promise.resolve(error as Error);
  }
  return new Promise((resolve) => {
    const onSpawn = (): void => {
      child.off('error', onError);
      resolve(child);
    };
    const onError = (error: Error): void => {
      child.off('spawn', onSpawn);
      resolve(error);
    };
    child.once('spawn', onSpawn);
    child.once('error', onError);
  });
}

/** What is at `command`, when it is a path (a bare name is looked up on PATH: undefined). */
export function pathKind(command: string): 'none' | 'file' | 'directory' | undefined {
  if (!/[\\/]/.test(command)) return undefined;
  try {
    return statSync(command).isDirectory() ? 'directory' : 'file';
  } catch {
    return 'none';
  }
}

/** Settles when `server` has exited (at once if it has already), with how. */
export function exitOf(server: ChildProcess): Promise<Exit> {
  return new Promise((resolve) => {
    if (typeof server.exitCode === 'number' || typeof server.signalCode === 'string') resolve([server.exitCode, server.signalCode]);
    else server.once('exit', (code, signal) => resolve([code, signal]));
  });
}
