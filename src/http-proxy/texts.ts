/**
 * The words the HTTP proxy's parts share: the prefix of its stderr lines,
 * and the reason a hold is given up when the host goes away. Kept apart so
 * that every part can say them without importing the proxy itself.
 *
 * @module
 */

/** The prefix of every line the HTTP proxy prints on stderr. */
export const HTTP_PROXY_PREFIX = 'graphmind http-proxy: ';

/** Why a hold is given up when the host closes the HTTP request that carried the call. */
export const CLIENT_CLOSED = 'the client closed its HTTP request';
