/**
 * Is `value` a JSON object: not `null`, not an array, not a primitive?
 * The one guard every part uses before it reads a parsed message's fields.
 */
export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
