// Config B: the simplest possible Node stdio relay in front of the echo
// server. No framing, no parsing: this is the floor any Node proxy pays
// (one extra process, two extra pipe hops), and the yardstick for config C.
import { spawn } from 'node:child_process';

const [command, ...args] = process.argv.slice(2);
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
process.stdin.pipe(child.stdin);
child.stdout.pipe(process.stdout);
// 'close' (not 'exit') so every byte the server wrote has been relayed first.
child.on('close', (code, signal) => {
  process.exitCode = signal ? 1 : (code ?? 1);
});
