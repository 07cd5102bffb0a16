import { RedlineError } from './redline-error.js';

/** Files of the workspace cannot be read, so its snapshot would be incomplete; the run does not start. */
export class WorkspaceUnreadableError extends RedlineError {
  readonly workspace: string;
  /** The unreadable paths, each with the system's error code. */
  readonly files: readonly string[];

  constructor(workspace: string, files: readonly string[]) {
    super({
      code: 'workspace.unreadable',
      message: `${files.length} file(s) of the workspace ${workspace} cannot be read, so the run's snapshot would miss them: ${files.slice(0, 10).join(', ')}${files.length > 10 ? ', …' : ''} (make them readable, or list them in the mission's ignore)`,
    });
    this.name = 'WorkspaceUnreadableError';
    this.workspace = workspace;
    this.files = files;
  }
}
