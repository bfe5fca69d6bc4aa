#!/usr/bin/env node
/**
 * CDK app entry (cdk.json: `npx tsx bin/gym-bridge.ts`). Stage and settings come from context:
 *   npx cdk deploy -c stage=prod -c alarmEmail=ops@example.com
 * See lib/stage-config.ts for every key and docs/deploy.md for the guide.
 */
import { createGymBridgeApp } from '../lib/gym-bridge-app';

createGymBridgeApp();
