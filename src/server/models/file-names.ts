/** What a model file or folder name tells about the model, following common GGUF naming. */
export interface NameGuess {
  family: string;
  parameters: number | null;
  quantization: string | null;
}

// Order matters: a more specific family must come before one it contains (codellama before llama).
const FAMILIES: [RegExp, string][] = [
  [/codellama|code-llama/, 'codellama'],
  [/tinyllama/, 'tinyllama'],
  [/llava/, 'llava'],
  [/llama/, 'llama'],
  [/mixtral/, 'mixtral'],
  [/codestral/, 'codestral'],
  [/mistral|ministral/, 'mistral'],
  [/qwen/, 'qwen'],
  [/codegemma/, 'codegemma'],
  [/gemma/, 'gemma'],
  [/phi/, 'phi'],
  [/deepseek/, 'deepseek'],
  [/gpt-oss/, 'gpt-oss'],
  [/falcon/, 'falcon'],
  [/command-r|c4ai/, 'command-r'],
  [/granite/, 'granite'],
  [/olmo/, 'olmo'],
  [/starcoder/, 'starcoder'],
  [/smollm/, 'smollm'],
  [/vicuna/, 'vicuna'],
  [/nomic-embed/, 'nomic-embed'],
  [/bge-/, 'bge'],
  [/(^|[-_.])e5-/, 'e5'],
  [/minilm/, 'minilm'],
  [/(^|[-_.])yi-/, 'yi'],
];

const SEP = '[-_.\\s]';
/** GGUF quantization types (Q4_K_M, IQ2_XXS, Q8_0, F16…) and common non-GGUF ones. */
const QUANT = new RegExp(
  `(?:^|${SEP})(I?Q\\d(?:_[A-Z0-9]+)*|TQ\\d_\\d|BF16|FP16|FP32|F16|F32|MXFP4|AWQ|GPTQ|EXL2|INT4|INT8)(?=$|${SEP})`,
  'i',
);
/** 8b, 70B, 0.5b, 135m; a mixture like 8x7b is matched so that it is not misread as 7b. */
const PARAMS = new RegExp(`(?:^|${SEP})(?:(\\d+)x)?(\\d+(?:\\.\\d+)?)([bm])(?=$|${SEP})`, 'i');

export function guessFromName(name: string): NameGuess {
  const lower = name.toLowerCase();
  const family = FAMILIES.find(([re]) => re.test(lower))?.[1] ?? 'unknown';
  const q = QUANT.exec(name);
  const p = PARAMS.exec(name);
  let parameters: number | null = null;
  // A mixture's total is not experts × size (experts share layers), so it stays unknown.
  if (p && !p[1]) parameters = Math.round(Number(p[2]) * (p[3].toLowerCase() === 'b' ? 1e9 : 1e6));
  return { family, parameters, quantization: q ? q[1].toUpperCase() : null };
}

/** A plausible file extension (.gguf, .bin, .safetensors), not a version fragment like `.1-8b`. */
const EXTENSION = /\.[A-Za-z][A-Za-z0-9]{0,11}$/;

/** Model id of a models-directory entry: a file's name without its extension, a folder's name. */
export const modelIdFromEntry = (entryName: string, isDirectory: boolean): string =>
  isDirectory ? entryName : entryName.replace(EXTENSION, '') || entryName;
