// Types of the documents the core exchanges with every surface, and of web/api.js (the JS
// module; web/client.js keeps the same interface through the Worker). Written by hand to match
// core/schema/request.schema.json and core/schema/result.schema.json (schema_version 1).

export type Verdict = 'fits' | 'tight' | 'offload' | 'no_fit';
export type Engine = 'llama.cpp' | 'vllm' | 'sglang';
export type KvType = 'f16' | 'bf16' | 'f32' | 'q8_0' | 'q5_1' | 'q5_0' | 'q4_1' | 'q4_0' | 'iq4_nl';

/** llama.cpp's placement of the model on the devices and in system RAM (engine llama.cpp). */
export interface Placement {
  engine: 'llama.cpp'; ngl: number; n_cpu_moe: number; tensor_split: number[]; mmap: boolean;
  full_offload: boolean; fits: boolean; automatic: boolean; n_layer: number;
  /** Memory the automatic offload plan leaves free per device (llama.cpp's --fit target margin), 0 when none. */
  fit_margin_bytes: number;
  /** Bytes the plan holds on the accelerators, in system RAM, and both. */
  devices_bytes: number; host_bytes: number; total_bytes: number;
  /** The GPUs' buffers for running RAM-held weights on the GPU for large batches. */
  op_offload_bytes: number;
  /** total_bytes − memory.total_bytes: what the plan holds beyond the all-on-accelerators figure. */
  over_full_bytes: number;
  /** Main layers whose weights sit in system RAM (-ngl below the layer count). */
  cpu_layers: number;
  /** Runs of consecutive layers on one device (absent with detail "summary"); a run in system RAM has device "cpu" and no device_index. */
  layers?: { device: string; device_index?: number; first: number; count: number }[];
}

/** Something the core says as a code and its values; each surface words it in its language. */
export interface Coded<C extends string = string> { code: C; values: Record<string, unknown> }
export type NoteCode = 'quant_replaced' | 'quant_alias';
export type DiagnosticCode = 'weights_exceed_budget' | 'context_exceeds_kv' | 'graphs_exceed_headroom';
export type UsableRuleCode =
  | 'gpu_driver_reserve' | 'gpu_driver_reserve_display' | 'metal_wired_limit'
  | 'metal_working_set_small' | 'metal_working_set_large' | 'unified_gpu_share' | 'cpu_os_reserve';
export interface UsableRule { code: UsableRuleCode; params: Record<string, number> }
export type QualityBand = 'lossless' | 'near_lossless' | 'good' | 'noticeable' | 'heavy' | 'unknown';
export type QualityGroup = 'high' | 'reduced' | 'low' | 'unknown';
export interface Quality { band: QualityBand; rank_group: QualityGroup; ppl_delta_pct?: number }

export type ModelRef =
  | string
  | ({ config: object; id?: string; name?: string } & MmprojRef)
  | ({ gguf_header_base64: string; gguf_shards_base64?: string[]; plan?: 'file' | 'computed'; id?: string; name?: string } & MmprojRef)
  /** a header registered once with registerGguf */
  | ({ gguf_handle: string; plan?: 'file' | 'computed'; id?: string; name?: string } & MmprojRef);
/** The model's own vision projector file (core gguf/mmproj.hpp): registered with registerMmproj, or its first bytes. */
export interface MmprojRef { mmproj_handle?: string; mmproj_header_base64?: string; mmproj_path?: string; mmproj_revision?: string }
export type DeviceRef =
  | string
  | { name: string; kind: 'gpu' | 'apple' | 'unified' | 'cpu'; memory_gib: number; bandwidth_gbs: number;
      fp16_tflops?: number; backend?: string; overhead_backend?: string; id?: string };

/** An estimate request (also the base of solve, tiers, runs_on, train and cost requests). */
export interface Request {
  model?: ModelRef;
  hardware?: DeviceRef | DeviceRef[];
  engine?: Engine;
  quant?: string;
  context?: number;
  count?: number;
  ram_gib?: number;
  kv_type?: KvType; kv_type_k?: KvType; kv_type_v?: KvType;
  parallel?: number; ubatch?: number; flash_attn?: boolean; kv_unified?: boolean; swa_full?: boolean;
  rules?: '2025-12' | '2026'; imatrix?: boolean; mla_v_less?: boolean;
  wired_limit_mib?: number; gpu_share?: number; display?: boolean;
  ngl?: number; n_cpu_moe?: number; tensor_split?: number[]; mmap?: boolean;
  tensor_parallel?: number; concurrency?: number; gpu_memory_utilization?: number; mem_fraction_static?: number;
  max_num_seqs?: number; max_num_batched_tokens?: number; kv_cache_dtype?: string; block_size?: number; enforce_eager?: boolean;
  prompt?: number; gen?: number; depth?: number; backend?: string; ram_bandwidth_gbs?: number; pcie_gbs?: number;
  detail?: 'full' | 'summary';
  /** Speculative decoding on the model's own MTP layers; draft_max tokens per step; workload first stated. */
  mtp?: boolean; draft_max?: number; workload?: 'code' | 'prose';
  /** Images per prompt (0 = text only) and their size; the vision projector's file type, placement and published size. */
  images?: number; image_width?: number; image_height?: number;
  /** Seconds of audio per prompt (0 = none): the audio encoder's memory, windows, tokens and prefill time (result `audio`). */
  audio_seconds?: number;
  mmproj_offload?: boolean; mmproj_type?: 'f16' | 'bf16' | 'f32' | 'q8_0'; mmproj_bytes?: number;
  solve?: 'max_context' | 'best_quant' | 'make_it_fit' | 'cheapest' | 'picks' | 'smallest_device' | 'kv_outlook';
  min_context?: number; allow_offload?: boolean; min_decode_tps?: number; max_count?: number;
  /** cost: the rent-vs-buy horizon; 'auto' = 1.5 x the break-even point, 24 to 240 months */
  months?: number | 'auto';
  [field: string]: unknown;
}

export interface ErrorBody {
  code: string; path: string; message: string; accepted?: string[]; needed_bytes?: number;
  /** Named values the message quotes, as data (unsupported_model_type: model_type). */
  values?: Record<string, string>;
}
export interface ErrorDocument { schema_version: 1; error: ErrorBody }

export interface DeviceLoad {
  id: string; name?: string; backend?: string;
  weights_bytes: number; kv_bytes: number; compute_bytes: number; overhead_bytes: number;
  /** The vision projector's weights and encoder buffer held here (images sent). */
  projector_bytes?: number;
  total_bytes: number; usable_bytes: number; fits: boolean;
  /** The low end of usable_bytes (below it only where the device's size is the vendor's figure). */
  usable_low_bytes?: number;
  /** This device's tag on the headline's rule: tight when it fits without room to spare on usable_low_bytes. */
  verdict: 'fits' | 'tight' | 'no_fit';
  /** compute_bytes without llama.cpp's buffer for weights held in RAM (op_offload_bytes). */
  compute_graph_bytes: number;
  [field: string]: unknown;
}

export interface ServerDemand {
  /** The stated sequences (the request's concurrency, else one: sequences_code 'one') at `context`. */
  sequences: number; sequences_code: 'asked' | 'one'; context: number;
  kv_per_sequence_bytes: number; kv_bytes: number; kv_pool_bytes: number;
  /** The pool beyond the stated sequences; negative when it lacks room for them. */
  room_bytes: number;
  /** Sequences of `context` the pool holds at once, and beyond the stated ones. */
  pool_sequences: number; room_sequences: number;
  /** The running-request cap the command passes (engine_cap_flag), and the smaller of it and pool_sequences. */
  engine_cap: number; engine_cap_flag: '--max-num-seqs' | '--max-running-requests'; sequences_at_once: number;
  limit_code: 'pool' | 'engine_cap';
}

export interface ServerBudget {
  engine?: Engine;
  settings: { tensor_parallel: number; max_model_len: number; gpu_memory_utilization?: number; mem_fraction_static?: number; [k: string]: unknown };
  per_gpu: { total_bytes: number; weights_bytes: number; kv_available_bytes: number; [k: string]: unknown };
  kv_tokens: number; max_model_len_fit: number; max_concurrency: number; fits: boolean;
  /** How the pool is counted (its wording): blocks of block_size tokens, SGLang's single tokens, or
   *  blocks every page group draws from (DeepSeek V4 under vLLM). */
  pool_code?: 'blocks' | 'tokens' | 'shared_blocks';
  blocks_per_request?: number;
  /** SGLang, hybrid models: running requests its recurrent-state pool holds (0: none). */
  state_slots?: number;
  diagnostics: Coded<DiagnosticCode>[];
  /** What the request needs of the pool against what it holds (bytes over all GPUs). */
  demand?: ServerDemand;
  fit?: ServerBudget;
  throughput?: Record<string, unknown>;
  [field: string]: unknown;
}

export interface Speed {
  decode_tps: number; decode_tps_low: number; decode_tps_high: number;
  /** What the decode figure stands on; 'tensor_parallel': vLLM / SGLang over several GPUs (basis.tensor_parallel);
   *  'device_figures': vLLM / SGLang where llama.cpp does not run, from the device's own figures at the
   *  calibrated backends' efficiencies (basis.from_backends, basis.uncertain). */
  decode_label?: 'measured' | 'calibrated' | 'extrapolated' | 'tensor_parallel' | 'mlx_fitted' | 'device_figures';
  /** Uncertain device figures (hardware.uncertain low/high) that widened the decode or prefill range. */
  device_uncertain?: { field: 'bandwidth_gbs' | 'fp16_tflops'; range: 'decode' | 'prefill'; low_factor: number; high_factor: number }[];
  prefill_tps?: number; ttft_ms?: number;
  /** The time to first token of the whole prompt (text, images, audio); present with ttft_ms. */
  first_token?: FirstToken;
  [field: string]: unknown;
}

/**
 * The time to first token of the whole prompt the request describes: the text prompt (text_ms, which
 * is ttft_ms; `prompt` counts text tokens only) plus the prefill of the images
 * (projector.image_prefill_seconds) and of the audio (audio.prefill_seconds), in ms, with the
 * prefill range on the sum. 'media_not_modelled': the engine or the tower does not model the media
 * (no ms; media_codes gives the projector's and the audio section's code).
 */
export interface FirstToken {
  code: 'text_only' | 'includes_media' | 'media_not_modelled';
  ms?: number; ms_low?: number; ms_high?: number;
  text_ms: number; image_ms?: number; audio_ms?: number;
  prompt_tokens: number; depth: number; images: number; image_tokens?: number;
  /** With image_ms: the vision encoder's own run is not timed; image_ms is the image tokens' prefill. */
  image_encode?: 'not_modelled';
  audio_seconds: number; audio_tokens?: number;
  /** The whole prompt's tokens; exceeds_context when depth + tokens is more than context. */
  tokens?: number; context?: number; exceeds_context?: boolean;
  engine?: string; media_codes?: { images?: string; audio?: string };
}

export interface SpeculativeWorkload {
  workload: 'code' | 'prose'; p_low?: number; p_high?: number;
  acceptance_low: number; acceptance_high: number; speedup_low: number; speedup_high: number;
  decode_tps?: number; decode_tps_low?: number; decode_tps_high?: number;
}

export interface Speculative {
  kind: 'mtp'; engine: Engine; draft_max: number; workload: 'code' | 'prose';
  weights_bytes: number; kv_bytes: number; extra_bytes: number; draft_cost: number; routed_share: number;
  overhead_per_draft_token?: number; expert_verify_share?: number;
  /** 'metal_small_batch': llama.cpp on Metal with a verify batch of up to 8 rows (the Metal share per drafted token). */
  overhead_code?: 'fitted' | 'metal_small_batch';
  workloads: SpeculativeWorkload[]; source?: string;
}

export type MemoryBasis =
  | { code: 'driver_reported' | 'capacity' }
  | { code: 'vendor_figure'; values: { low_gib: number; less_share: number } };

export interface EstimateResult {
  schema_version: 1;
  /** Fields of the request the core did not read (RequestWarning); absent when there are none. */
  warnings?: RequestWarning[];
  model: { id: string; name: string; org?: string; layers: number; params_total: number; params_active: number; max_context: number; approximate?: boolean; approximate_code?: string; topology_code: TopologyCode; [k: string]: unknown };
  quant: { id: string; bits_per_weight: number; quality: Quality };
  hardware: { id: string; name: string; kind: 'gpu' | 'apple' | 'unified' | 'cpu'; device_type: DeviceType; count: number; memory_gib: number; bandwidth_gbs: number; backend: string;
    /** The products it ships in, their lines, the chip's short name and its GPU and CPU cores (data/SCHEMA.md `products`, `chip`). */
    products: string[]; product_lines: string[]; chip: string | null; gpu_cores: number | null; cpu_cores: number | null;
    /** The vendor's size where it is not memory_gib (B200: 180 GB for 179.06 GiB): what a name says (data/SCHEMA.md). */
    memory_sold_gb?: number;
    /** What memory_gib stands on: the driver's total, the vendor's own figure (with the low end the
     * driver may report, GiB, and the share it is below memory_gib) or the size as stated. */
    memory_basis: MemoryBasis;
    /** Figures public sources do not settle, by field name (data/SCHEMA.md `uncertain`). */
    uncertain?: Record<string, { why: 'derived' | 'sources_disagree' | 'unverified'; low?: number; high?: number; notes?: string; sources?: string[] }> };
  settings: { engine: Engine; context: number; context_requested: number; parallel: number; ubatch: number; flash_attn: boolean; kv_type_k: string; kv_type_v: string; ram_gib: number };
  memory: {
    weights_bytes: number; host_weights_bytes: number; kv_cache_bytes: number; compute_bytes: number;
    overhead_bytes: number; total_bytes: number; total_high_bytes: number; usable_bytes: number;
    /** The low end of usable_bytes (below it only for a vendor_figure device): "fits" needs room to spare on it. */
    usable_low_bytes: number;
    /** The vision projector on the accelerators (inside total_bytes, outside the other parts). */
    projector_bytes?: number;
    /** A separate draft model's weights, cache and compute buffer on the accelerators (inside total_bytes, outside the other parts). */
    draft_bytes?: number;
    physical_bytes: number; margin_bytes: number; utilization: number;
    /** vLLM / SGLang: the preallocated KV pool (kv_cache_bytes is what the stated sequences need of it). */
    kv_pool_bytes?: number;
    /** vLLM / SGLang: what the engine sets aside, the whole pool with it (total_bytes is the need). */
    reserved_bytes?: number;
    usable_rule_code: UsableRule;
    /** bytes_per_token: what a token of context adds at the engine's cache type, over the layers
     * bytes_per_token_covers names (growing_layers: some hold a fixed window or state instead). */
    kv: { bytes_per_token: number; bytes_per_token_covers: 'all_layers' | 'growing_layers'; cache_type: string; fixed_layers?: number; element_bytes?: number; [k: string]: unknown };
    devices?: DeviceLoad[]; host?: Record<string, unknown>; [k: string]: unknown;
  };
  verdict: Verdict;
  notes: Coded<NoteCode>[];
  speed?: Speed;
  vllm?: ServerBudget;
  sglang?: ServerBudget;
  /** engine mlx: mlx-lm's settings as estimated; mla_cache: what its model file caches on MLA
   * layers, the latent or every head's keys and values (absent without MLA layers). */
  mlx?: { kv_step: number; prefill_step: number; kv_bits: number; kv_group_size: number; mode: string; bits: number; group_size: number;
    working_set_bytes: number; weights_share_of_working_set: number; slow_warning: boolean; mla_cache?: 'latent' | 'per_head' };
  placement?: Placement;
  commands?: Record<string, string>;
  gguf_file_bytes?: number; checkpoint_bytes?: number;
  /** vLLM / SGLang: the formats offered for this model, each with the Hub repo it is served from (null: none published). */
  server_formats?: { id: string; repo: string | null; code: 'publisher' | 'published' | 'not_published' }[];
  /** vLLM / SGLang: the checkpoint the estimated format is served from. */
  checkpoint?: { repo: string | null; code: 'publisher' | 'published' | 'not_published'; source?: string; checked?: string;
    bits?: number; group_size?: number; zero_point?: boolean; published_bytes?: number; diff_pct?: number };
  /** MTP / NextN layers in the file; resident only with `mtp` on. `draft_engines`: the engines that
   *  draft with them (llama.cpp not for GLM-5); `drafts`: the chosen engine is one of them. */
  mtp?: { layers: number; params: number; file_bytes: number; resident_bytes: number; loaded: boolean;
          draft_engines: Engine[]; drafts: boolean };
  speculative?: Speculative;
  /** The vision projector of a multimodal model (present when its config has a vision tower). */
  projector?: Projector;
  /** The audio encoder of a multimodal model (present when its config or mmproj file has an audio tower). */
  audio?: AudioEncoder;
  gguf_file_published_bytes?: number; gguf_file_published_repo?: string;
  /** 100 × (gguf_file_bytes − published) / published: + when the computed file is larger. */
  gguf_file_published_diff_pct?: number;
  detail?: 'summary';
}

export interface EngineDefaults { quant: string; formats: string[]; name?: string; kv_types?: string[]; kv_bits_by_type?: Record<string, number>; [setting: string]: unknown }
export interface DefaultsDocument {
  /** The page's context input: the slider's steps (1K doubling to 1M) and the presets beside it. */
  context_input: { steps: number[]; presets: number[] };
  /** The device a model's page sizes its formats on, and why. */
  reference_device: { id: string; code: 'consumer_discrete_gpu' };
  /** The formats a model's page states its limits with (quant ids). */
  limit_formats: { high: string; smallest: string };
  /** System RAM choices in GiB (0 = none): the main form's and a device page's. */
  ram_input: { choices: number[]; device_page: number[] };
  schema_version: 1;
  estimate: { engine: Engine; context: number; count: number; ram_gib: number; prompt: number; gen: number; depth: number; detail: 'full' | 'summary'; [k: string]: unknown };
  engines: { 'llama.cpp': EngineDefaults; vllm: EngineDefaults; sglang: EngineDefaults };
  cost: { market: string; hours_per_day: number; amortization_months: number; months: number; concurrency: number; [k: string]: unknown };
  training: { method: 'full' | 'lora' | 'qlora'; optimizer: string; seq: number; batch: number; lora_rank: number; seq_choices: number[]; [k: string]: unknown };
  solve: { min_context: number; max_count: number; min_decode_tps: number; [k: string]: unknown };
  /** The welcome: one example setup of each kind (rule one_per_kind); the first is what it opens on. */
  welcome: { rule: 'one_per_kind'; model: string; hardware: string; examples: WelcomeExample[] };
}
export interface WelcomeExample {
  kind: 'one_gpu' | 'mac' | 'unified_pc' | 'several_gpus' | 'ram_offload' | 'server';
  model: string; quant: string; hardware: string; count: number; ram_gib: number; engine: Engine;
}

/** A model's topology as codes (the page words it per language; `topology` is the CLI's English). */
export interface TopologyCode {
  ffn: 'dense' | 'moe'; experts?: number; experts_used?: number;
  attention: 'mla' | 'hybrid_linear' | 'hybrid_linear_mla' | 'mha' | 'mqa' | 'gqa'; window: 'none' | 'some_layers' | 'all_layers';
}

/** A count search capped by the card's segment (solve `count_caps[]`, data/segments.json). */
export interface CountCap { code: 'segment_max_count'; segment: string; segment_max_count: number; max_count: number }

/**
 * Whether list('hardware') offers a device among the devices to compare a model on (`compare`),
 * and why (`compare_code`; defaults.hpp compare_offer).
 */
export type CompareCode = 'priced_gpu' | 'priced_large_memory' | 'no_price' | 'cpu' | 'small_memory';

/**
 * What the vendor calls a discrete device (the catalog's `device_type`, "gpu" when it states none):
 * the word the page names it and its memory by; for kind apple, unified and cpu the kind itself.
 */
export type DeviceType = 'gpu' | 'npu' | 'accelerator' | 'apple' | 'unified' | 'cpu';

/** A setup solve 'cheapest' names in `setups[]`: the cheapest of its kind, one per code. */
export interface CheapestSetup {
  code: 'in_device_memory' | 'with_system_ram'; id: string; name: string; kind: string; device_type: DeviceType; count: number;
  memory_gib: number; ram_gib: number; price_usd: number; verdict: Verdict; decode_tps: number;
  decode_tps_low: number; total_bytes: number;
}

/**
 * A runs_on entry's model: its parameter counts (not billions) as the estimate computes them, the
 * same figures as an estimate's `model.params_total` and `params_active`.
 */
export interface RunsOnModel { id: string; name: string; params_total: number; params_active: number }

/** What one change of solve 'make_it_fit' achieves (`items[].outcome`), said first on its line. */
export type FixOutcome = 'runs' | 'runs_offloaded' | 'too_slow';

/**
 * A request field that no reader of the function knows (estimate, estimate_many, solve, cost,
 * tiers, runs_on): listed beside the result, never silently dropped. A near miss of a field the
 * request does not give ("ram_gb" for ram_gib) is an unknown_field error instead, with the field
 * meant in `accepted`. Past 64 warnings, one warnings_left_out counts the rest.
 */
export interface RequestWarning { code: 'unknown_field' | 'warnings_left_out'; path: string; did_you_mean?: string; count?: number }

/** Documents whose shape api.hpp and the headers it names describe (solve.hpp, training.hpp …). */
export interface Versioned { schema_version: 1; warnings?: RequestWarning[]; [field: string]: unknown }

export class WillitfitError extends Error {
  constructor(e: ErrorBody);
  code: string;
  path: string;
  accepted?: string[];
  neededBytes?: number;
  values?: Record<string, string>;
}

export function loadCore(moduleUrl?: string): Promise<unknown>;
export function estimate(request: Request): Promise<EstimateResult>;
export function estimateMany(requests: Request[]): Promise<(EstimateResult | ErrorDocument)[]>;
export function tiers(request: Request): Promise<Versioned>;
export function runsOn(request: Request): Promise<Versioned>;
export function solve(request: Request): Promise<Versioned>;
export function train(request: Request): Promise<Versioned>;
export function cost(request: Request): Promise<Versioned>;
export function defaults(request?: { model?: ModelRef }): Promise<DefaultsDocument>;
export function list(what: 'models' | 'hardware' | 'quants' | 'clouds' | 'markets'): Promise<Record<string, unknown>[]>;
/** {tensors: 'table'}: the tensors as typed arrays (bytes only, not base64; api.js summaryWithTable). */
export interface GgufTensorTable {
  count: number; type_names: string[]; name: string[]; type: Uint8Array; n_dims: Uint8Array;
  ne: Float64Array; bytes: Float64Array; offset: Float64Array;
}
export function ggufSummary(bytesOrBase64: Uint8Array | ArrayBuffer | string,
  options?: { tensors?: 'list' | 'columns' | 'none' | 'table' }): Promise<Versioned & { tensor_table?: GgufTensorTable }>;
export function bytesToBase64(bytes: Uint8Array): string;
export function readGgufHeader(blob: Blob): Promise<{ bytes: Uint8Array; summary: Versioned }>;
export function registerGguf(bytes: Uint8Array | ArrayBuffer): Promise<{ schema_version: 1; handle: string; name: string; architecture: string }>;
export function registerMmproj(bytes: Uint8Array | ArrayBuffer): Promise<{ schema_version: 1; handle: string; name: string; projector_type: string; family: string; modelled: boolean; tensors: number; tensor_bytes: number;
  audio?: { projector_type: string; family: string; modelled: boolean; tensor_bytes: number } }>;
export function importGguf(blob: Blob): Promise<{ handle: string; name: string; architecture: string; summary: Versioned }>;
export function accuracyReport(): Promise<Versioned>;

/** The audio encoder (core/include/willitfit/model/audio.hpp); see result.schema.json. */
export interface AudioEncoder {
  modelled: boolean; loaded: boolean; seconds: number;
  code: 'loaded' | 'no_audio' | 'engine_not_modelled' | 'projector_family_unknown' | 'audio_config_incomplete';
  missing?: string; model_type?: string; source?: 'mmproj_file'; projector_type?: string;
  family?: 'voxtral' | 'qwen2_audio' | 'ultravox';
  type?: string; bytes?: number; bytes_source?: 'computed' | 'file'; params?: number;
  compute_bytes?: number; resident_bytes?: number; file_bytes?: number; offload?: boolean;
  placement?: 'device' | 'cpu'; device_id?: string;
  window_seconds?: 30; windows?: number; positions?: number; tokens_per_window?: number; tokens?: number; kv_bytes?: number;
  context_share?: number; exceeds_context?: boolean; encode_gflops?: number;
  token_prefill_seconds?: number; encode_seconds?: number; encode_basis?: 'prefill_flop_rate'; prefill_seconds?: number;
}

/** The vision projector (core/include/willitfit/model/projector.hpp); see result.schema.json. */
export interface Projector {
  modelled: boolean; loaded: boolean; images: number;
  code: 'loaded' | 'no_images' | 'engine_not_modelled' | 'projector_family_unknown' | 'vision_config_incomplete';
  missing?: string; model_type?: string;
  family?: 'gemma3' | 'qwen2_vl' | 'qwen2_5_vl' | 'qwen3_vl' | 'pixtral' | 'llama4';
  /** f16 | bf16 | f32 | q8_0 when computed; a file read may hold another ggml type */
  type?: string;
  bytes?: number; bytes_source?: 'published' | 'computed' | 'file'; computed_bytes?: number; params?: number;
  /** read from the model's own mmproj GGUF (absent: computed from the config) */
  source?: 'mmproj_file';
  file?: { path: string; revision: string; projector_type: string; tensors: number; header_bytes: number; file_bytes: number; tensor_bytes: number };
  compute_bytes?: number; resident_bytes?: number; offload?: boolean;
  placement?: 'device' | 'cpu'; device_id?: string;
  image?: { width: number; height: number; requested_width: number; requested_height: number; positions: number; size_dependent: boolean };
  tokens_per_image?: number; image_tokens?: number; image_kv_bytes?: number;
  context_share?: number; exceeds_context?: boolean; encode_gflops?: number; image_prefill_seconds?: number;
}
