import { backends } from './backends.js';
import { reviewQueueContract } from './contract.js';

for (const backend of backends) reviewQueueContract(backend);
