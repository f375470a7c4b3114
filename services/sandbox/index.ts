export { sandboxConfigSection, type SandboxConfigSection } from './config';
export { Sandbox } from './pool';
