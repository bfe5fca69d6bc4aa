/** One club as the sandbox runs it: its settings, its data and its simulation. */
import type { ClubSimulation } from './activity/simulation';
import type { PlanName } from './club-profile';
import type { ClubStore } from './club-store';

export interface ClubRuntime {
  readonly clubId: string;
  readonly apiKey: string;
  readonly plan: PlanName;
  readonly timeZone: string;
  readonly store: ClubStore;
  readonly simulation: ClubSimulation;
}
