// `node --import ./hide-peers.mjs`: the packages named in REDLINE_TEST_HIDE (comma-separated), and their
// subpaths, resolve as if they were not installed, the way an install without redline's optional peers
// leaves them (node names the package, not the subpath).
import { register } from 'node:module';

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
