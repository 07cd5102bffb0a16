/** redline's version, as `redline --version` prints it (read without loading the CLI: see bin/redline.js). */
export const VERSION = '0.1.0';
