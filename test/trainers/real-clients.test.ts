import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseConfig } from '../../services/config';
import { packageRoot } from '../../services/paths';
import type { RunningServer } from '../../services/server';
import { startModelBackedServer, type ModelBackedServer } from '../fixtures/model-servers';
import { startTestServer } from '../fixtures/server';
import { ABORTING_VERIFIERS } from '../python-client/aborting-registry';
import { PYTHON, unittestCase } from '../ops/python';

/**
 * The trainers' own reward-calling code — OpenRLHF's SingleTurnAgentExecutor, slime's remote_rm /
 * async_rm, verl's get_custom_reward_fn and its reward loop and batch managers — loaded from their
 * published files (test/fixtures/trainer-clients, SOURCE.md) by test/trainers/real_clients and run by
 * /usr/bin/python3 (Debian's python3-aiohttp, python3-numpy, python3-grpcio) against real servers:
 * B with a sandbox, agentState and terminal's bwrap backend (qa, math, code, puzzle, if, agent_state, terminal), C with a fake reward model and judge
 * (rlhf, search), A whose `flaky` verifier always aborts.
 */
const ROOT = packageRoot();

describe("the trainers' real reward clients against Verdict", () => {
  let a: RunningServer;
  let b: RunningServer;
  let c: ModelBackedServer;
  let env: Record<string, string>;
  let restoreStderr: () => void;

  beforeAll(async () => {
    expect(existsSync(PYTHON)).toBe(true);
    [a, b, c] = await Promise.all([
      startTestServer({ workers: 1, verifiers: ABORTING_VERIFIERS }),
      startTestServer({ workers: 2, config: parseConfig({ sandbox: {}, agentState: {}, terminal: {} }) }),
      startModelBackedServer(),
    ]);
    // The routes log one line per failed answer; the failures here are on purpose.
    const spy = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    restoreStderr = () => spy.mockRestore();
    env = {
      VERDICT_TEST_HTTP_A: `http://127.0.0.1:${a.httpPort}`,
      VERDICT_TEST_HTTP_B: `http://127.0.0.1:${b.httpPort}`,
      VERDICT_TEST_HTTP_C: `http://127.0.0.1:${c.server.httpPort}`,
      VERDICT_TEST_GRPC_A: `127.0.0.1:${a.grpcPort}`,
      VERDICT_TEST_GRPC_B: `127.0.0.1:${b.grpcPort}`,
      VERDICT_TEST_GRPC_C: `127.0.0.1:${c.server.grpcPort}`,
    };
  }, 60_000);
  afterAll(async () => {
    restoreStderr?.();
    await Promise.all([a?.shutdown(), b?.shutdown(), c?.close()]);
  });

  const unittest = (module: string) => unittestCase(module, () => env, path.join(ROOT, 'test', 'trainers'));

  it("OpenRLHF's SingleTurnAgentExecutor: every verifier, label shapes, a left-truncated prompt, no reward is None, 384 in flight, a list over two URLs", unittest('real_clients.test_openrlhf'), 120_000);

  it("slime's async_rm / remote_rm and --custom-rm-path (reward, reward_group): every verifier, chat prompts, 512 in flight, failures raised with the reason", unittest('real_clients.test_slime'), 120_000);

  it("verl's reward loop and batch manager calling verdict_client.verl, loaded by get_custom_reward_fn", unittest('real_clients.test_verl'), 120_000);
});
