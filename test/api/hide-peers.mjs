// `node --import ./hide-peers.mjs`: the packages named in REDLINE_TEST_HIDE (comma-separated) resolve as
// if they were not installed, the way an install without redline's optional peers leaves them.
import { register } from 'node:module';

register(
  `data:text/javascript,${encodeURIComponent(`
    const hidden = new Set((process.env.REDLINE_TEST_HIDE ?? '').split(',').filter(Boolean));
    export async function resolve(specifier, context, next) {
      if (hidden.has(specifier)) {
        const error = new Error(\`Cannot find package '\${specifier}' imported from \${context.parentURL}\`);
        error.code = 'ERR_MODULE_NOT_FOUND';
        throw error;
      }
      return next(specifier, context);
    }
  `)}`,
);
