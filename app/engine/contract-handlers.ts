import type { VpnClient } from '../../shared/ipc/contract';

/** The contract's operations (everything but its events): each service answers some of them. */
export type ContractHandlers = Omit<VpnClient, 'on'>;

/** The operations of the contract named by `C`. */
export type HandlersOf<C extends keyof ContractHandlers> = Pick<ContractHandlers, C>;
