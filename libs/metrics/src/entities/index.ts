// Tracking events and their rollups.
export const metricsEntities: Function[] = [];
