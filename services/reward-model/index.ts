import { ChatTemplateError, loadChatTemplate, type ChatTemplate } from './chat-template';
import { RewardModelEndpoint } from './client';
import type { RewardModelsPort } from '../../core/ports/reward-model';
import type { RewardModelConfig } from './config';

export { RewardModelEndpoint } from './client';

/** The configured reward-model endpoints, by name; verifiers reach them as `env.services.rewardModels`. */
export class RewardModels implements RewardModelsPort {
  constructor(
    private readonly endpoints: ReadonlyMap<string, RewardModelEndpoint>,
    readonly defaultName: string,
  ) {}

  /** The named endpoint, or the default one when `name` is undefined. */
  get(name?: string): RewardModelEndpoint | undefined {
    return this.endpoints.get(name ?? this.defaultName);
  }

  names(): string[] {
    return [...this.endpoints.keys()];
  }
}

/** Start-up problems, each naming its config key (`verdict.yaml.rewardModel.endpoints.rm.chatTemplate: …`). */
export class RewardModelSetupError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
  }
}

/** Builds the endpoints, loading every chat template now so a bad path fails at start-up. */
export function createRewardModels(config: RewardModelConfig, source = 'config'): RewardModels {
  const endpoints = new Map<string, RewardModelEndpoint>();
  const problems: string[] = [];
  for (const [name, endpoint] of Object.entries(config.endpoints)) {
    let template: ChatTemplate | undefined;
    if (endpoint.chatTemplate !== undefined) {
      try {
        const tokens: Record<string, string> = endpoint.bosToken !== undefined ? { bos_token: endpoint.bosToken } : {};
        template = loadChatTemplate(endpoint.chatTemplate, tokens);
      } catch (error) {
        const why = error instanceof ChatTemplateError ? error.message : `invalid template (${(error as Error).message})`;
        problems.push(`${source}.rewardModel.endpoints.${name}.chatTemplate: ${why}`);
        continue;
      }
    }
    endpoints.set(name, new RewardModelEndpoint(name, endpoint, template));
  }
  if (problems.length > 0) throw new RewardModelSetupError(problems);
  const defaultName = config.default ?? [...endpoints.keys()][0]!;
  return new RewardModels(endpoints, defaultName);
}
