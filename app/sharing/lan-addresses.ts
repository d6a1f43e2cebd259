/** The private addresses this machine has now: what the sharing page offers to pick from. */
import { networkInterfaces, type NetworkInterfaceInfo } from 'node:os';
import { sharingAddressProblem } from '../../shared/sharing';

export function privateAddresses(interfaces: NodeJS.Dict<NetworkInterfaceInfo[]> = networkInterfaces()): { address: string; interface: string }[] {
  const out: { address: string; interface: string }[] = [];
  for (const [name, infos] of Object.entries(interfaces)) {
    for (const info of infos ?? []) {
      // A link-local IPv6 address needs its interface to be listened on: not offered.
      if (info.internal || info.address.toLowerCase().startsWith('fe80:')) continue;
      if (sharingAddressProblem(info.address) === null) out.push({ address: info.address, interface: name });
    }
  }
  // IPv4 first: what a TV's proxy field takes.
  return out.sort((a, b) => Number(a.address.includes(':')) - Number(b.address.includes(':')));
}
