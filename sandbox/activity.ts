/**
 * The club simulation, split by domain under activity/: this module keeps the public names
 * (ClubSimulation, its settings, the rates and the first ids) where the sandbox imports them.
 */
export {
  FIRST_PAYMENT_ID,
  FIRST_POS_ID,
  FIRST_POS_ITEM_ID,
  type SimulationSettings,
} from './activity/context';
export { DEFAULT_RATES } from './activity/schedule';
export { ClubSimulation } from './activity/simulation';
