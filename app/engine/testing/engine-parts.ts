/**
 * An engine with its parts in reach, for tests and benchmarks that must watch a part the contract
 * does not show (the failover benchmark reads the tunnel's dial failures and retries). The
 * product's Engine type carries no such hook.
 */
import { assembleEngine, type EngineOptions, type EngineParts } from '../engine';

export function createEngineWithParts(options: EngineOptions): Promise<EngineParts> {
  return assembleEngine(options);
}
