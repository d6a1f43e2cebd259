/** Tests run on the simulator's virtual clock: time moves only when a test advances it. */
export { VirtualClock as FakeClock } from '../virtual-clock';
