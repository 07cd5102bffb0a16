import { backends } from './backends.js';
import { ledgerContract } from './contract.js';
import { priorsContract } from './priors-contract.js';

for (const backend of backends) {
  ledgerContract(backend);
  priorsContract(backend);
}
