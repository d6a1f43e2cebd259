/**
 * This machine's addresses as the sharing page shows them: the private ones, offered to pick
 * from, and the others, shown but never offered, so a person who looks for the address they know
 * sees why it cannot be chosen (a public or carrier-grade NAT address would offer the proxies to
 * everyone on that network and beyond).
 */
import { networkInterfaces, type NetworkInterfaceInfo } from 'node:os';
import { sharingAddressProblem } from '../../shared/sharing';

type Interfaces = NodeJS.Dict<NetworkInterfaceInfo[]>;
export interface MachineAddress {
  address: string;
  interface: string;
}

/** Every non-loopback address but IPv6 link-local (it needs its interface to be listened on), IPv4 first: what a TV's proxy field takes. */
function ownAddresses(interfaces: Interfaces): MachineAddress[] {
  const out: MachineAddress[] = [];
  for (const [name, infos] of Object.entries(interfaces)) {
    for (const info of infos ?? []) {
      if (info.internal || info.address.toLowerCase().startsWith('fe80:')) continue;
      out.push({ address: info.address, interface: name });
    }
  }
  return out.sort((a, b) => Number(a.address.includes(':')) - Number(b.address.includes(':')));
}

/** The private addresses this machine has now: what the sharing page offers to pick from. */
export function privateAddresses(interfaces: Interfaces = networkInterfaces()): MachineAddress[] {
  return ownAddresses(interfaces).filter((a) => sharingAddressProblem(a.address) === null);
}

/** This machine's other addresses: shown on the sharing page as not to be shared on. */
export function notPrivateAddresses(interfaces: Interfaces = networkInterfaces()): MachineAddress[] {
  return ownAddresses(interfaces).filter((a) => sharingAddressProblem(a.address) !== null);
}
