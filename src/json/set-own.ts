/**
 * Set `key` on `target` as a plain own data property, whatever the key:
 * `target[key] = value` with a key such as `__proto__`, taken from input,
 * would replace the object's prototype instead of storing the value.
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__' || key === 'constructor' || key === 'prototype') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}
