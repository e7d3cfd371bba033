// The in-process adapter's cost per tool call, over the SDK's in-memory
// transport (client and server in one process): the server as written
// (plain), wrapped with no debugger (detached), and wrapped reporting to a
// running graphmind serve with no breakpoints (attached). Each run is a
// fresh process (bench/adapter-calls.mjs); the configurations take turns,
// round after round, so a drifting machine hurts all alike.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const name = 'adapter';
const CALLS = fileURLToPath(new URL('../adapter-calls.mjs', import.meta.url));
/** The configurations, in the order each round runs them. */
export const MODES = ['plain', 'detached', 'attached'];

/** One run of one configuration: resolves with its mean µs per call, wall and CPU ({ perCallUs, cpuPerCallUs }). */
function runOnce(sdk, mode, calls, warmupMs, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CALLS, sdk, mode, String(calls), String(warmupMs)], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`adapter bench (${sdk}, ${mode}) exited with code ${code}`));
      try {
        resolve(JSON.parse(out.trim().split("\n").at(-1)));
      } catch (error) {
        reject(error);
      }
    });
  });
}

/**
 * Every configuration for one SDK generation, once: `{ plain, detached,
 * attached }`, each `{ perCallUs, cpuPerCallUs }`. `attachedEnv` points the attached run at the
 * bench's graphmind serve; `afterAttached` clears what it recorded.
 */
export async function round(sdk, { calls, warmupMs }, attachedEnv, afterAttached) {
  const out = {};
  for (const mode of MODES) {
    // Detached means nothing listens where the adapter looks.
    const env = mode === 'attached' ? attachedEnv : { GRAPHMIND_URL: 'ws://127.0.0.1:1/ingest' };
    out[mode] = await runOnce(sdk, mode, calls, warmupMs, env);
    if (mode === 'attached') await afterAttached();
  }
  return out;
}
