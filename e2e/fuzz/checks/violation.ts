/** A result that breaks a property: thrown by the checks, reported with the input by the runners. */
export class Violation extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'Violation';
  }
}

export function ensure(condition: unknown, message: string | (() => string)): asserts condition {
  if (!condition) throw new Violation(typeof message === 'string' ? message : message());
}

/** Short, printable form of a value for a violation message. */
export function show(value: unknown, max = 160): string {
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  let text: string;
  try {
    text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max)}…(${text.length} chars)` : text;
}

/** A validator's error must be an Error with a message a user can read: non-empty, one line, bounded. */
export function ensureClearError(error: unknown, startsWith: string | RegExp): void {
  ensure(error instanceof Error, () => `threw a non-Error: ${show(error)}`);
  const { message } = error;
  ensure(error.name !== 'TypeError' && error.name !== 'RangeError', () => `threw a ${error.name} (a bug, not a validation error): ${message}`);
  ensure(typeof startsWith === 'string' ? message.startsWith(startsWith) : startsWith.test(message), () => `error does not start as expected (${String(startsWith)}): ${show(message)}`);
  ensure(message.length <= 1000, () => `error message is ${message.length} characters long`);
}
