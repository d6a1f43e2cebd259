export { createEngine, type Engine, type EngineOptions } from './engine';
