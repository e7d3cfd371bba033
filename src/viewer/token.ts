// The API token: written into the page by the server, in a meta tag. When the
// server restarts it has a new token; the page fetches its own HTML again
// (same origin) and reads the new one, so it can reconnect without a reload.

const META = 'meta[name="graphmind-token"]';

let current = document.querySelector(META)?.getAttribute('content') ?? '';

/** The token the page holds now. */
export function token(): string {
  return current;
}

function unescapeAttribute(value: string): string {
  return value.replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code))).replace(/&(amp|lt|gt|quot|apos);/g, (_m, name: string) => {
    switch (name) {
      case 'amp':
        return '&';
      case 'lt':
        return '<';
      case 'gt':
        return '>';
      case 'quot':
        return '"';
      default:
        return "'";
    }
  });
}

let refreshing: Promise<boolean> | undefined;

/**
 * Read the token again from the page the server serves now. Resolves true
 * when it changed. Never parses the HTML as a document: a regular
 * expression picks the one attribute.
 */
export function refreshToken(): Promise<boolean> {
  refreshing ??= (async () => {
    try {
      const res = await fetch('/', { cache: 'no-store', credentials: 'omit' });
      if (!res.ok) return false;
      const html = await res.text();
      const match = /<meta name="graphmind-token" content="([^"]*)">/.exec(html);
      if (match === null) return false;
      const next = unescapeAttribute(match[1] ?? '');
      if (next === '' || next === current) return false;
      current = next;
      return true;
    } catch {
      return false;
    } finally {
      refreshing = undefined;
    }
  })();
  return refreshing;
}
