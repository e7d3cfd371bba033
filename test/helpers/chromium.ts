// Finds a Chromium for the viewer tests without downloading anything:
// CHROMIUM_PATH, then Debian's /usr/bin/chromium, then the headless Chromium
// that the devDependency @sparticuz/chromium carries inside its npm package
// (brotli-compressed), unpacked once into node_modules/.cache.
import { spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { createBrotliDecompress } from 'node:zlib';

/** Where Debian installs Chromium. */
export const DEBIAN_CHROMIUM = '/usr/bin/chromium';

/** A Chromium to launch, and where it came from. */
export interface FoundChromium {
  executablePath: string;
  /** Extra environment for the browser process (libraries or fonts the machine lacks). */
  env: Record<string, string>;
  source: 'CHROMIUM_PATH' | 'debian' | '@sparticuz/chromium';
}

let found: Promise<FoundChromium> | undefined;

/** The options that launch `found` under playwright-core, with its extra environment if any. */
export function launchOptions(found: FoundChromium, args: string[]): { executablePath: string; headless: true; args: string[]; env?: NodeJS.ProcessEnv } {
  const options = { executablePath: found.executablePath, headless: true as const, args };
  return Object.keys(found.env).length > 0 ? { ...options, env: { ...process.env, ...found.env } } : options;
}

/**
 * The Chromium to run, in this order: `CHROMIUM_PATH`, `/usr/bin/chromium`,
 * the one inside `@sparticuz/chromium`. Rejects with one clear line when none
 * can be had (a test then fails; it never passes without a browser).
 */
export function findChromium(): Promise<FoundChromium> {
  found ??= locateChromium(process.env, DEBIAN_CHROMIUM);
  return found;
}

/** {@link findChromium} uncached, with the environment and Debian's path given (for its own test). */
export async function locateChromium(env: NodeJS.ProcessEnv, debianPath: string): Promise<FoundChromium> {
  const fromEnv = env.CHROMIUM_PATH;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`CHROMIUM_PATH is ${fromEnv}, which does not exist`);
    return { executablePath: fromEnv, env: {}, source: 'CHROMIUM_PATH' };
  }
  if (existsSync(debianPath)) return { executablePath: debianPath, env: {}, source: 'debian' };
  return bundledChromium();
}

/** The package root of @sparticuz/chromium, or a clear error when it is not installed. */
function bundledPackage(): { root: string; version: string } {
  let main: string;
  try {
    main = fileURLToPath(import.meta.resolve('@sparticuz/chromium'));
  } catch {
    throw new Error(`no Chromium: set CHROMIUM_PATH, install Debian's (apt-get install -y chromium), or run npm install (the devDependency @sparticuz/chromium carries one)`);
  }
  let root = dirname(main);
  while (!existsSync(join(root, 'package.json')) || !existsSync(join(root, 'bin'))) {
    const up = dirname(root);
    if (up === root) throw new Error(`@sparticuz/chromium at ${main} has no bin/ folder`);
    root = up;
  }
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  return { root, version };
}

/** The Chromium inside @sparticuz/chromium, unpacked on first use. */
export async function bundledChromium(): Promise<FoundChromium> {
  const { root, version } = bundledPackage();
  const cache = join(root, '..', '..', '.cache', 'graphmind-chromium');
  const target = join(cache, version);
  if (!existsSync(join(target, 'chromium'))) {
    // Unpack into a private folder, then rename it into place: two test
    // processes racing both succeed, and a half-unpacked folder is never used.
    await mkdir(cache, { recursive: true });
    const work = await mkdtemp(join(cache, `.unpack-${process.pid}-`));
    try {
      const bin = join(root, 'bin');
      await unbrotli(join(bin, 'chromium.br'), join(work, 'chromium'));
      // Chromium looks for its software GL (swiftshader) beside the binary.
      await untar(join(bin, 'swiftshader.tar.br'), work);
      await mkdir(join(work, 'fonts'));
      await untar(join(bin, 'fonts.tar.br'), join(work, 'fonts'));
      await mkdir(join(work, 'libs'));
      await untar(join(bin, 'al2023.tar.br'), join(work, 'libs'));
      await rename(work, target).catch(async (error: NodeJS.ErrnoException) => {
        if (!existsSync(join(target, 'chromium'))) throw error;
      });
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }
  const executablePath = join(target, 'chromium');
  const env: Record<string, string> = {};
  if (missingLibraries(executablePath)) {
    env.LD_LIBRARY_PATH = [join(target, 'libs', 'lib'), process.env.LD_LIBRARY_PATH].filter(Boolean).join(':');
  }
  if (!existsSync('/etc/fonts/fonts.conf')) {
    // No system font configuration: point fontconfig at the bundled fonts.
    const conf = join(target, 'fonts.conf');
    if (!existsSync(conf)) {
      await writeFile(conf, `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n  <dir>${join(target, 'fonts', 'fonts')}</dir>\n  <dir>/usr/share/fonts</dir>\n  <cachedir>${join(target, 'fonts-cache')}</cachedir>\n</fontconfig>\n`);
    }
    env.FONTCONFIG_FILE = conf;
  }
  return { executablePath, env, source: '@sparticuz/chromium' };
}

/** True when the dynamic linker cannot find a library the binary needs (or ldd is missing). */
function missingLibraries(binary: string): boolean {
  const ldd = spawnSync('ldd', [binary], { encoding: 'utf8' });
  if (ldd.status !== 0) return true;
  return /not found/.test(ldd.stdout);
}

async function unbrotli(from: string, to: string): Promise<void> {
  await pipeline(createReadStream(from), createBrotliDecompress(), createWriteStream(to, { mode: 0o755 }));
}

/**
 * Unpack a brotli-compressed tar with the system's tar (present on every
 * Linux the tests run on). Decompressed to a file first: tar may stop
 * reading at the archive's end marker, before the padding after it, and a
 * pipe into its stdin then fails with a premature close.
 */
async function untar(from: string, into: string): Promise<void> {
  const archive = join(into, '.archive.tar');
  await pipeline(createReadStream(from), createBrotliDecompress(), createWriteStream(archive));
  try {
    const tar = spawnSync('tar', ['-x', '-f', archive, '-C', into], { encoding: 'utf8' });
    if (tar.error !== undefined) throw new Error(`tar could not unpack ${from}: ${tar.error.message}`);
    if (tar.status !== 0) throw new Error(`tar could not unpack ${from}: ${tar.stderr.trim() || `exit ${tar.status}`}`);
  } finally {
    await rm(archive, { force: true });
  }
}
