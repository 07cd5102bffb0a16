// `node --import ./hide-peers.mjs`: the packages named in REDLINE_TEST_HIDE (comma-separated), and their
// subpaths, resolve as if they were not installed, the way an install without redline's optional peers
// leaves them (node names the package, not the subpath): for `import` (a module hook) and for `require`
// and `require.resolve` (CommonJS resolution, which those hooks do not see on Node 20).
import { Module, register } from 'node:module';

const hidden = new Set((process.env.REDLINE_TEST_HIDE ?? '').split(',').filter(Boolean));
const hiddenName = (specifier) => [...hidden].find((item) => specifier === item || specifier.startsWith(`${item}/`));

register(
  `data:text/javascript,${encodeURIComponent(`
    const hidden = new Set((process.env.REDLINE_TEST_HIDE ?? '').split(',').filter(Boolean));
    export async function resolve(specifier, context, next) {
      const name = [...hidden].find((item) => specifier === item || specifier.startsWith(\`\${item}/\`));
      if (name !== undefined) {
        const error = new Error(\`Cannot find package '\${name}' imported from \${context.parentURL}\`);
        error.code = 'ERR_MODULE_NOT_FOUND';
        throw error;
      }
      return next(specifier, context);
    }
  `)}`,
);

const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, parent, ...rest) {
  if (hiddenName(request) !== undefined) {
    const error = new Error(`Cannot find module '${request}'`);
    error.code = 'MODULE_NOT_FOUND';
    throw error;
  }
  return resolveFilename.call(this, request, parent, ...rest);
};
