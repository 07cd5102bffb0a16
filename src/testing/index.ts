// Test doubles for users' own tests.
export { startOpenAIStub, type OpenAIStub, type StubReply } from './openai-stub-server.js';
