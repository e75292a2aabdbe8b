// rp.pods moved above both APIs (src/pods/); kept for importers of this module.
export * from '../pods/index.js';
