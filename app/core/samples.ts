// The sample servers live in shared/, where the renderer's tests build on them too; the
// Shadowsocks 2022 key below needs Node's Buffer, so it stays here.
export { sampleServer } from '../../shared/domain/sample-servers';

/** A valid Shadowsocks 2022 key for the method (base64 of 16 or 32 bytes). */
export function ss2022Key(method: string): string {
  const bytes = method.includes('128') ? 16 : 32;
  return Buffer.alloc(bytes, 7).toString('base64');
}
