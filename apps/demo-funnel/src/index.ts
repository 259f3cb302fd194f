export { DEMO_PAGES, startDemoFunnel } from './demo-funnel.server';
