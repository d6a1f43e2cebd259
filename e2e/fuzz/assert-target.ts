import fc from 'fast-check';
import { runInput, targetNamed } from './properties';

/**
 * Runs one fuzz target as a property test: `numRuns` generated inputs (plus `examples`, inputs
 * that once broke a property), shrinking any failure to a minimal counterexample. The seed is
 * random unless FUZZ_SEED is set; a failure prints it with the path to replay. A run stops
 * after `timeLimitMs` (a failure found by then is still reported), so a slow machine runs fewer
 * inputs rather than timing out.
 */
export async function assertTarget(name: string, numRuns: number, examples: unknown[] = [], timeLimitMs = 20_000): Promise<void> {
  const target = targetNamed(name);
  const session = await target.open();
  const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
  try {
    await fc.assert(
      fc.asyncProperty(target.arbitrary as fc.Arbitrary<unknown>, async (input) => {
        await runInput(session as never, input as never);
      }),
      { numRuns, examples: examples.map((e) => [e]), interruptAfterTimeLimit: timeLimitMs, ...(seed !== undefined ? { seed } : {}) },
    );
  } catch (error) {
    throw shortened(error);
  } finally {
    await session.close();
  }
}

/** fast-check prints the whole counterexample; a 60 KB body would bury the reason. */
function shortened(error: unknown): unknown {
  if (!(error instanceof Error) || error.message.length < 4000) return error;
  const lines = error.message.split('\n').map((line) => (line.length > 1500 ? `${line.slice(0, 1500)}… (${line.length} characters)` : line));
  const short = new Error(lines.join('\n'), { cause: error.cause });
  short.stack = `${short.name}: ${short.message}`;
  return short;
}
