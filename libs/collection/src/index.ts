export * from './collection.module';
export * from './entities';
export { COLLECTION_BODY } from './collection-body';
export { trackerScript, type TrackerScript } from './tracker/tracker-script';
export { collectRoute, serveCollectFirst } from './collect-route';
export { CollectService } from './collect.service';
