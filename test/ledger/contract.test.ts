import { backends } from './backends.js';
import { ledgerContract } from './contract.js';

for (const backend of backends) ledgerContract(backend);
