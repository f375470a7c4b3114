import { z } from 'zod';
import { CHAT_FORMATS, chatFormatOfTemplate, isChatFormat, TOOL_FORMATS, type ChatFormat } from '../../core/transcript';
import { ChatTemplateError, loadChatTemplate } from '../reward-model/chat-template';

/**
 * `trainers:` in the config: defaults of the OpenRLHF and slime routes for what a request's URL
 * does not say (`?chat_format=`, `?tool_format=` win).
 */
export const trainersConfigSection = z.strictObject({
  chatFormat: z
    .string()
    .min(1)
    .optional()
    .describe(`How a string prompt is read back into messages: ${CHAT_FORMATS.join(', ')}, or the policy's chat template (a .jinja file or its tokenizer_config.json), whose markers say its format`),
  toolFormat: z.enum(TOOL_FORMATS).optional().describe('Tool-call format of a text trajectory (default: the one the chat format implies)'),
});

export type TrainersConfigSection = z.output<typeof trainersConfigSection>;

/** What the routes put in `metadata` when the URL names nothing. */
export interface TrainerDefaults {
  chat_format?: ChatFormat;
  tool_format?: string;
}

export type ResolvedTrainerDefaults = { ok: true; value: TrainerDefaults } | { ok: false; error: string };

/** The section's defaults, a template file read (at start-up) for its format; errors name `trainers.chatFormat`. */
export function trainerDefaults(section: TrainersConfigSection | undefined): ResolvedTrainerDefaults {
  const out: TrainerDefaults = {};
  if (section?.toolFormat) out.tool_format = section.toolFormat;
  const spec = section?.chatFormat;
  if (spec === undefined) return { ok: true, value: out };
  if (isChatFormat(spec)) return { ok: true, value: { ...out, chat_format: spec } };
  if (!/[/.]/.test(spec)) return { ok: false, error: `trainers.chatFormat: unknown format "${spec}" (known: ${CHAT_FORMATS.join(', ')}; or a template file path)` };
  try {
    const detected = chatFormatOfTemplate(loadChatTemplate(spec).source);
    if (!detected.ok) return { ok: false, error: `trainers.chatFormat: ${spec}: ${detected.error}` };
    return { ok: true, value: { ...out, chat_format: detected.value } };
  } catch (error) {
    if (error instanceof ChatTemplateError) return { ok: false, error: `trainers.chatFormat: ${error.message}` };
    throw error;
  }
}
