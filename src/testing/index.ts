// Test doubles for users' own tests.
export { startOpenAIStub, type OpenAIStub, type StubReply } from './openai-stub-server.js';
export { startScriptedModel, type ScriptedCall, type ScriptedModel } from './scripted-model/server.js';
export type { Script, ScriptStep } from './scripted-model/script.js';
