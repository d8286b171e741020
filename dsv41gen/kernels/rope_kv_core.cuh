// The fused RoPE + KV-insert kernels and their launcher, shared by every variant of the family.
// Torch-free. Not a header of its own: each variant's rope_kv_kernel.cuh includes it inside the
// variant's namespace, after declaring what that variant's spec decides (rope_kv_common.h: the
// geometry, ScalarKind / CacheKind / RecordLayout, the launch record; rope_kv_kernel.cuh: the fp8
// and UE8M0 constants, CacheTraits per cache format (record layout and numerics), ScalarOps per
// input dtype, kQRopeFma, kPdlMinMajor, kKvOnlyBlocksPerSm and the grid rule use_warp_per_slot).
// Nothing below depends on a spec, so the family carries one copy. No include guard: a second
// variant's header expands it again, in its own namespace.
//
// Per token the kernel handles kNumHeadsQPadded + 1 "slots", one warp each:
//   slot <  num_heads_q                     live Q head: optional weightless RMSNorm, then RoPE
//   num_heads_q <= slot < kNumHeadsQPadded  zero fill of the padded Q head
//   slot == kNumHeadsQPadded                the KV row: RoPE, quantize, paged insert
// kNumHeadsQPadded == 0 is the KV-only insert; its warp-per-slot grid is a kernel of its own
// (kv_only_strided_kernel), capped at one wave of resident blocks, each warp striding over
// tokens: on sm_90+ the block-scaled formats keep several tokens per warp in flight through
// shared memory (bulk copies, insert_kv_pipelined), the others keep one token ahead in registers
// (insert_kv_strided). A warp owns one kHeadDim-value row, kValuesPerLane consecutive values per
// lane, moved as two 16-byte vectors; lanes [kRopeFirstLane, 32) hold the RoPE dims
// [kNopeDim, kHeadDim).
// All math is fp32 with explicitly rounded operations; where a spec asks for an FMA (RoPE
// contraction) it is spelled __fmaf_rn, so the pure-torch reference reproduces every bit.
// On SM90+ every launch allows programmatic dependent launch: each kernel waits for the previous
// grid (griddepcontrol.wait) before its first global access and lets the next grid start
// (griddepcontrol.launch_dependents) once its stores are issued; the KV-only kernel of the
// formats stored lane by lane from registers (per-tensor fp8) lets it start right after its own
// wait (kKvOnlyEarlyTrigger). Either way the next grid's griddepcontrol.wait waits until this
// grid has completed and its stores are visible: the trigger only lets the next grid's blocks
// take the multiprocessors this grid's blocks leave.

constexpr int kWarpSize = 32;
constexpr int kWarpsPerBlock = kThreadsPerBlock / kWarpSize;
constexpr int kValuesPerLane = kHeadDim / kWarpSize;
constexpr int kRopeFirstLane = kNopeDim / kValuesPerLane;
constexpr int kRopePairsPerLane = kValuesPerLane / 2;
constexpr unsigned kFullMask = 0xffffffffu;
// KV-only kernel choices, measured on an H200 (benchmarks/sweep_rope_kv_kv_only.py overrides them
// to compare): DSV41GEN_KV_ONLY_PIPELINE 0 keeps every format on the register loop, 1 moves the
// block-scaled formats to the bulk-copy pipeline, 2 every format, 3 only the block-scaled formats
// with bf16 values (fp8_ds_mla; mxfp8 then runs 1.1-2.1 points of copy faster at 262144 tokens and
// 1.0-1.4 slower at 16384, sweep 5); DSV41GEN_KV_ONLY_STAGES is the pipeline's tokens in flight
// per warp; DSV41GEN_KV_ONLY_COALESCED_BF16 0 stores all-bf16 records lane by lane. The default,
// every format on the register loop with the block-scaled ones keeping the next token's cos/sin
// row in flight (DSV41GEN_KV_ONLY_COS_SIN_AHEAD 2), was the fastest per format in sweep 6 but
// per-tensor fp8 at 16384 / 65536 tokens (benchmarks/results/rope_kv_kv_only_sweep6_h200.json);
// sweeps 7 and 8 added the slot shifts and the large-prefill grid below to it.
#ifndef DSV41GEN_KV_ONLY_PIPELINE
#define DSV41GEN_KV_ONLY_PIPELINE 0
#endif
#ifndef DSV41GEN_KV_ONLY_STAGES
#define DSV41GEN_KV_ONLY_STAGES 2
#endif
#ifndef DSV41GEN_KV_ONLY_COALESCED_BF16
#define DSV41GEN_KV_ONLY_COALESCED_BF16 1
#endif
// DSV41GEN_KV_ONLY_MIN_BLOCKS overrides kKvOnlyBlocksPerSm, the resident blocks per
// multiprocessor the KV-only kernel's registers are capped for; DSV41GEN_KV_ONLY_WAVE_BLOCKS caps
// the blocks per multiprocessor of its grid below what is resident (the sweep's occupancy and grid
// candidates; 0: no cap).
#ifdef DSV41GEN_KV_ONLY_MIN_BLOCKS
constexpr int kKvOnlyMinBlocks = DSV41GEN_KV_ONLY_MIN_BLOCKS;
#else
constexpr int kKvOnlyMinBlocks = kKvOnlyBlocksPerSm;
#endif
#ifndef DSV41GEN_KV_ONLY_WAVE_BLOCKS
#define DSV41GEN_KV_ONLY_WAVE_BLOCKS 0
#endif
// From DSV41GEN_KV_ONLY_BF16_LARGE_TOKENS tokens on (0: never), the all-bf16 record's grid is
// DSV41GEN_KV_ONLY_BF16_LARGE_BLOCKS blocks per multiprocessor instead of every resident one
// (kv_only_blocks).
#ifndef DSV41GEN_KV_ONLY_BF16_LARGE_TOKENS
#define DSV41GEN_KV_ONLY_BF16_LARGE_TOKENS 131072
#endif
#ifndef DSV41GEN_KV_ONLY_BF16_LARGE_BLOCKS
#define DSV41GEN_KV_ONLY_BF16_LARGE_BLOCKS 3
#endif
// DSV41GEN_KV_ONLY_PREFETCH > 0: lane 0 of each KV-only warp also asks the copy engine to bring
// the kv rows of its tokens that many tokens past the ones already loading into L2
// (cp.async.bulk.prefetch.L2, sm_90+), so more reads are in flight early in the launch; 0: none.
#ifndef DSV41GEN_KV_ONLY_PREFETCH
#define DSV41GEN_KV_ONLY_PREFETCH 0
#endif
// DSV41GEN_KV_ONLY_EARLY_TRIGGER: which formats' KV-only kernel lets the next grid launch
// (griddepcontrol.launch_dependents) right after its own griddepcontrol.wait instead of once its
// stores are issued (kKvOnlyEarlyTrigger): 0 none, 1 those on the register loop stored lane by
// lane (per-tensor fp8: +2.6-2.7 points of copy at 65536-262144 tokens on an H200, while bf16,
// fp8_ds_mla and mxfp8 were level, benchmarks/results/rope_kv_kv_only_sweep4_h200.json), 2 every
// format. DSV41GEN_KV_ONLY_LOAD_256B 1: the register loop's kv loads carry the L2::256B
// prefetch-size hint (level or slower in the same sweep).
#ifndef DSV41GEN_KV_ONLY_EARLY_TRIGGER
#define DSV41GEN_KV_ONLY_EARLY_TRIGGER 1
#endif
#ifndef DSV41GEN_KV_ONLY_LOAD_256B
#define DSV41GEN_KV_ONLY_LOAD_256B 0
#endif
// DSV41GEN_KV_ONLY_COS_SIN_AHEAD 1: the register loop also has the next token's cos/sin row in
// flight (its RoPE lanes copy it into a per-warp shared-memory ring with cp.async, the positions
// read two tokens ahead), so the current token's RoPE does not wait for a load issued just before;
// 2: only for the block-scaled formats.
#ifndef DSV41GEN_KV_ONLY_COS_SIN_AHEAD
#define DSV41GEN_KV_ONLY_COS_SIN_AHEAD 2
#endif
// DSV41GEN_KV_ONLY_SHIFT_SLOTS 1: the register loops split a slot into (block, row in block) with
// a shift and a mask where the block size is a power of two (as the pipeline does), instead of a
// division per token; 2: only for the block-scaled formats (sweep 7: +0.5-1.6 points of copy for
// fp8_ds_mla and mxfp8 at 16384-65536 tokens, while bf16 lost 1.4-3.3 and per-tensor fp8 0.6-1.4
// at 65536-262144; benchmarks/results/rope_kv_kv_only_sweep7_h200.json).
#ifndef DSV41GEN_KV_ONLY_SHIFT_SLOTS
#define DSV41GEN_KV_ONLY_SHIFT_SLOTS 2
#endif
// From DSV41GEN_KV_ONLY_SCALED_LARGE_TOKENS tokens on (0: never), the block-scaled formats' KV-only
// grid on the register loop is DSV41GEN_KV_ONLY_SCALED_LARGE_BLOCKS blocks per multiprocessor
// instead of every resident one (kv_only_blocks).
#ifndef DSV41GEN_KV_ONLY_SCALED_LARGE_TOKENS
#define DSV41GEN_KV_ONLY_SCALED_LARGE_TOKENS 196608
#endif
#ifndef DSV41GEN_KV_ONLY_SCALED_LARGE_BLOCKS
#define DSV41GEN_KV_ONLY_SCALED_LARGE_BLOCKS 3
#endif
// Q + KV op schedules (benchmarks/sweep_rope_kv_qkv.py compares them on an H200,
// benchmarks/results/rope_kv_qkv_sweep_h200.json). Every one keeps the spec's grid rule
// (use_warp_per_slot): the reduced grid from kNumTokenCutoff tokens, a warp per slot below.
//   0  reduced grid: one CTA per token, its warps stride over the token's slots, each slot
//      loaded, rotated and stored before the next one is loaded; warp-per-slot grid: one warp per
//      (token, slot), as many blocks as that takes.
//   1  reduced grid, prefetched: the same CTAs and slots, but each warp reads the token's
//      position (and the KV slot's cache slot) once, before its first row, and keeps its next
//      slot's row in flight while it rotates and stores the current one (qkv_token_prefetched).
//   2  balanced strided grid instead of the reduced one: one wave of resident blocks, global warp
//      w takes the (token, slot) items w, w + W, ... of the flattened token x slot space, each
//      item's row, position and cache slot loaded one item ahead (qkv_strided_kernel): no warp
//      idles while one warp of its CTA finishes a 17th or 129th slot.
//   3  the strided grid of 2 for every Q + KV launch, below kNumTokenCutoff tokens too.
//   4  (the default) the reduced grid of 0, and below kNumTokenCutoff the warp-per-slot grid as
//      the KV-only op lays it out: one wave of resident blocks whose warps stride over the
//      (token, slot) items (the strided kernel of 2), instead of a block per 8 items. With 16-byte
//      q_out stores, on an H200: 0.55-0.60x vLLM 0.33.0's time at 512 tokens and 16 / 128 heads
//      (schedule 0: 1.04 / 1.22x), 0.90-1.00x from 2048 tokens on (schedule 0: 1.00-1.30x);
//      schedules 2 and 3 were 1.09x at 128 heads and 65536 tokens.
// DSV41GEN_QKV_VECTOR_STORES 1: q_out rows (and zero-filled padded heads) are stored as two
// 16-byte st.global.v4 per lane; the compiler otherwise splits the first vector of each lane
// into four 4-byte stores (and the zero fill into 8 + 8 + 16 bytes), as vLLM 0.33.0's kernel
// does too (the default, 1: 0.70-0.75x schedule 0's time at 512 tokens, 0.70-0.93x from 2048).
#ifndef DSV41GEN_QKV_SCHEDULE
#define DSV41GEN_QKV_SCHEDULE 4
#endif
#ifndef DSV41GEN_QKV_VECTOR_STORES
#define DSV41GEN_QKV_VECTOR_STORES 1
#endif

// Programmatic dependent launch (no-ops before sm_90 and when the launch did not allow it).
__device__ __forceinline__ void wait_for_previous_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

__device__ __forceinline__ void allow_next_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

__device__ __forceinline__ uint32_t bf16x2_bits(float a, float b) {
  const __nv_bfloat162 packed = __floats2bfloat162_rn(a, b);
  return *reinterpret_cast<const uint32_t*>(&packed);
}

// What an fp32 value goes through before cvt.rn.satfinite (which saturates finite values at 448
// whatever fp8_max says, and turns NaN into 0x7F):
// - kSaturate (the per-tensor scaled values): clamp to +-kFp8Max;
// - kNanToNegativeMax (fp8_nan negative_max, vLLM 0.33.0): NaN becomes -kFp8Max, as
//   fminf(fmaxf(x, -max), max) makes it. Block-scaled values never exceed kFp8Max (the scale puts
//   the block amax at or below it), so there fmaxf(x, -max) alone does it;
// - without kNanToNegativeMax a NaN stays NaN (e4m3_nan).
template <bool kSaturate, bool kNanToNegativeMax>
__device__ __forceinline__ float saturate_fp8(float x) {
  if constexpr (kSaturate && kNanToNegativeMax) {
    return fminf(fmaxf(x, -kFp8Max), kFp8Max);
  } else if constexpr (kSaturate) {
    return isnan(x) ? x : fminf(fmaxf(x, -kFp8Max), kFp8Max);
  } else if constexpr (kNanToNegativeMax) {
    return fmaxf(x, -kFp8Max);
  } else {
    return x;
  }
}

template <bool kSaturate, bool kNanToNegativeMax>
__device__ __forceinline__ uint32_t e4m3x4_bits(float a, float b, float c, float d) {
  const uint32_t lo = __nv_cvt_float2_to_fp8x2(
      make_float2(saturate_fp8<kSaturate, kNanToNegativeMax>(a), saturate_fp8<kSaturate, kNanToNegativeMax>(b)),
      __NV_SATFINITE, __NV_E4M3);
  const uint32_t hi = __nv_cvt_float2_to_fp8x2(
      make_float2(saturate_fp8<kSaturate, kNanToNegativeMax>(c), saturate_fp8<kSaturate, kNanToNegativeMax>(d)),
      __NV_SATFINITE, __NV_E4M3);
  return lo | (hi << 16);
}

// This lane's kValuesPerLane values of a row, widened to fp32.
template <typename scalar_t>
__device__ __forceinline__ void load_values(const scalar_t* row, int lane, float (&v)[kValuesPerLane]) {
  const uint4* src = reinterpret_cast<const uint4*>(row + lane * kValuesPerLane);
  const uint4 vec[2] = {src[0], src[1]};
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const uint32_t words[4] = {vec[i].x, vec[i].y, vec[i].z, vec[i].w};
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const float2 f = ScalarOps<scalar_t>::to_float2(words[k]);
      v[8 * i + 2 * k] = f.x;
      v[8 * i + 2 * k + 1] = f.y;
    }
  }
}

// One 16-byte vector of a q_out row: a plain store, or (DSV41GEN_QKV_VECTOR_STORES) an explicit
// st.global.v4 that the compiler cannot split into narrower stores.
__device__ __forceinline__ void store_q_vector(uint4* dst, const uint4& value) {
  if constexpr (DSV41GEN_QKV_VECTOR_STORES) {
    asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(dst), "r"(value.x), "r"(value.y), "r"(value.z),
                 "r"(value.w)
                 : "memory");
  } else {
    *dst = value;
  }
}

template <typename scalar_t>
__device__ __forceinline__ void store_values(scalar_t* row, int lane, const float (&v)[kValuesPerLane]) {
  uint4* dst = reinterpret_cast<uint4*>(row + lane * kValuesPerLane);
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const float* f = v + 8 * i;
    store_q_vector(dst + i, make_uint4(ScalarOps<scalar_t>::from_float2(f[0], f[1]),
                                       ScalarOps<scalar_t>::from_float2(f[2], f[3]),
                                       ScalarOps<scalar_t>::from_float2(f[4], f[5]),
                                       ScalarOps<scalar_t>::from_float2(f[6], f[7])));
  }
}

// A padded Q head's part of q_out: zeros.
template <typename scalar_t>
__device__ __forceinline__ void store_zero_values(scalar_t* row, int lane) {
  uint4* dst = reinterpret_cast<uint4*>(row + lane * kValuesPerLane);
  store_q_vector(dst, make_uint4(0, 0, 0, 0));
  store_q_vector(dst + 1, make_uint4(0, 0, 0, 0));
}

// kStreamingAccesses (kernel.cuh): kv rows are read and cache records written with the streaming
// cache hint (ld/st.global.cs: each byte is touched once), else through the read-only path and
// plain stores.
template <typename T>
__device__ __forceinline__ void store_record(T* dst, const T& value) {
  if constexpr (kStreamingAccesses) {
    __stcs(dst, value);
  } else {
    *dst = value;
  }
}

__device__ __forceinline__ void store_bf16(uint8_t* dst, const float (&v)[kValuesPerLane]) {
  uint4* out = reinterpret_cast<uint4*>(dst);
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const float* f = v + 8 * i;
    store_record(out + i, make_uint4(bf16x2_bits(f[0], f[1]), bf16x2_bits(f[2], f[3]),
                                     bf16x2_bits(f[4], f[5]), bf16x2_bits(f[6], f[7])));
  }
}

template <bool kSaturate, bool kNanToNegativeMax>
__device__ __forceinline__ void store_e4m3(uint8_t* dst, const float (&v)[kValuesPerLane]) {
  store_record(reinterpret_cast<uint4*>(dst), make_uint4(
      e4m3x4_bits<kSaturate, kNanToNegativeMax>(v[0], v[1], v[2], v[3]),
      e4m3x4_bits<kSaturate, kNanToNegativeMax>(v[4], v[5], v[6], v[7]),
      e4m3x4_bits<kSaturate, kNanToNegativeMax>(v[8], v[9], v[10], v[11]),
      e4m3x4_bits<kSaturate, kNanToNegativeMax>(v[12], v[13], v[14], v[15])));
}

// GPT-J interleaved RoPE on this lane's pairs (rope_style gptj_interleaved): pair i is dims
// (kNopeDim + 2i, kNopeDim + 2i + 1); cos_sin_row holds kRopeDim / 2 cos, then kRopeDim / 2 sin.
__device__ __forceinline__ void load_cos_sin(
    const float* cos_sin_row, int lane, float (&cos_v)[kRopePairsPerLane], float (&sin_v)[kRopePairsPerLane]) {
  const int first_pair = (lane - kRopeFirstLane) * kRopePairsPerLane;
#pragma unroll
  for (int k = 0; k < kRopePairsPerLane; k += 4) {
    const float4 c = __ldg(reinterpret_cast<const float4*>(cos_sin_row + first_pair + k));
    const float4 s = __ldg(reinterpret_cast<const float4*>(cos_sin_row + kRopeDim / 2 + first_pair + k));
    cos_v[k] = c.x, cos_v[k + 1] = c.y, cos_v[k + 2] = c.z, cos_v[k + 3] = c.w;
    sin_v[k] = s.x, sin_v[k + 1] = s.y, sin_v[k + 2] = s.z, sin_v[k + 3] = s.w;
  }
}

// The same values from a copy of the row in shared memory (the KV-only loops' cos/sin ring and
// pipeline stages), as float4s.
__device__ __forceinline__ void read_cos_sin(const float4 (&cos_sin_row)[kRopeDim / 4], int lane,
                                             float (&cos_v)[kRopePairsPerLane], float (&sin_v)[kRopePairsPerLane]) {
  const int first_pair = (lane - kRopeFirstLane) * kRopePairsPerLane;
#pragma unroll
  for (int k = 0; k < kRopePairsPerLane; k += 4) {
    const float4 c = cos_sin_row[(first_pair + k) / 4];
    const float4 s = cos_sin_row[(kRopeDim / 2 + first_pair + k) / 4];
    cos_v[k] = c.x, cos_v[k + 1] = c.y, cos_v[k + 2] = c.z, cos_v[k + 3] = c.w;
    sin_v[k] = s.x, sin_v[k + 1] = s.y, sin_v[k + 2] = s.z, sin_v[k + 3] = s.w;
  }
}

// kFma (rope_contraction fma): even = fma(x_even, cos, -RN(x_odd * sin)),
// odd = fma(x_even, sin, RN(x_odd * cos)); else every product and sum is rounded on its own.
template <bool kFma>
__device__ __forceinline__ void rotate_pairs(
    float (&v)[kValuesPerLane], const float (&cos_v)[kRopePairsPerLane], const float (&sin_v)[kRopePairsPerLane]) {
#pragma unroll
  for (int k = 0; k < kRopePairsPerLane; ++k) {
    const float x1 = v[2 * k];
    const float x2 = v[2 * k + 1];
    if constexpr (kFma) {
      v[2 * k] = __fmaf_rn(x1, cos_v[k], -__fmul_rn(x2, sin_v[k]));
      v[2 * k + 1] = __fmaf_rn(x1, sin_v[k], __fmul_rn(x2, cos_v[k]));
    } else {
      v[2 * k] = __fsub_rn(__fmul_rn(x1, cos_v[k]), __fmul_rn(x2, sin_v[k]));
      v[2 * k + 1] = __fadd_rn(__fmul_rn(x2, cos_v[k]), __fmul_rn(x1, sin_v[k]));
    }
  }
}

template <bool kFma>
__device__ __forceinline__ void apply_rope(float (&v)[kValuesPerLane], const float* cos_sin_row, int lane) {
  float cos_v[kRopePairsPerLane];
  float sin_v[kRopePairsPerLane];
  load_cos_sin(cos_sin_row, lane, cos_v, sin_v);
  rotate_pairs<kFma>(v, cos_v, sin_v);
}

// max |v| over the kLanes lanes that share one scale (all lanes must call it).
template <int kLanes>
__device__ __forceinline__ float group_amax(const float (&v)[kValuesPerLane]) {
  float amax = 0.0f;
#pragma unroll
  for (int i = 0; i < kValuesPerLane; ++i) amax = fmaxf(amax, fabsf(v[i]));
#pragma unroll
  for (int offset = kLanes / 2; offset > 0; offset /= 2) {
    amax = fmaxf(amax, __shfl_xor_sync(kFullMask, amax, offset));
  }
  return amax;
}

// UE8M0 byte clamp(ceil(log2(max(amax, floor) / kFp8Max)) + 127, 0, 254), exact: with
// amax = (1 + m) * 2^e, the ceiling is e - kFp8MaxExponent, plus one when amax's mantissa exceeds
// kFp8Max's. (vLLM's ceilf(log2f(amax / 448)) gives the same byte for every finite amax of 11 or
// fewer significant bits, which is every amax of a row rounded to bf16 or fp16 first: its
// quotient is never within log2f's error of a power of two unless it is one.)
// kNanScaleForInf (infinite_amax nan_scale): an infinite amax gets 255, as vLLM's
// fminf(ceilf(log2f(inf)) + 127, 255) does; otherwise inf's exponent field gives 247. The amax
// is never NaN: fmaxf drops NaN operands (group_amax).
template <bool kNanScaleForInf>
__device__ __forceinline__ int ue8m0_scale(float amax, float floor) {
  const uint32_t bits = __float_as_uint(fmaxf(amax, floor));
  if constexpr (kNanScaleForInf) {
    if (bits >= 0x7f800000u) return 255;
  }
  const int exponent_field = static_cast<int>(bits >> 23);
  const int byte = exponent_field - kFp8MaxExponent + ((bits & 0x7fffffu) > kFp8MaxMantissa ? 1 : 0);
  return min(max(byte, kE8M0Min), kE8M0Max);
}

// 2^(127 - byte), built from its bits: the values are multiplied by the reciprocal scale. Byte
// 255 (kNanScaleForInf's infinite block) gives 0, vLLM's exp2f(-inf): finite values store +-0,
// infinities NaN.
template <bool kNanScaleForInf>
__device__ __forceinline__ float ue8m0_reciprocal(int byte) {
  if constexpr (kNanScaleForInf) {
    if (byte == 255) return 0.0f;
  }
  return __uint_as_float(static_cast<uint32_t>(2 * kE8M0Bias - byte) << 23);
}

// This lane's two 16-byte vectors of a kv row, not yet widened.
// This lane's two 16-byte vectors of a kv row, not yet widened (kStreamingAccesses: see
// store_record).
template <typename scalar_t>
__device__ __forceinline__ void load_raw(const scalar_t* row, int lane, uint4 (&raw)[2]) {
  const uint4* src = reinterpret_cast<const uint4*>(row + lane * kValuesPerLane);
  if constexpr (kStreamingAccesses) {
    raw[0] = __ldcs(src);
    raw[1] = __ldcs(src + 1);
  } else {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if constexpr (DSV41GEN_KV_ONLY_LOAD_256B) {
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        asm volatile("ld.global.nc.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(raw[i].x), "=r"(raw[i].y), "=r"(raw[i].z), "=r"(raw[i].w)
                     : "l"(src + i));
      }
      return;
    }
#endif
    raw[0] = __ldg(src);
    raw[1] = __ldg(src + 1);
  }
}


template <typename scalar_t>
__device__ __forceinline__ void widen(const uint4 (&raw)[2], float (&v)[kValuesPerLane]) {
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const uint32_t words[4] = {raw[i].x, raw[i].y, raw[i].z, raw[i].w};
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const float2 f = ScalarOps<scalar_t>::to_float2(words[k]);
      v[8 * i + 2 * k] = f.x;
      v[8 * i + 2 * k + 1] = f.y;
    }
  }
}

// Per-tensor fp8 scaling (per_tensor_scaling). reciprocal_multiply: x * RN(1 / scale), one
// correctly rounded reciprocal per warp. divide: x / scale, bit-exact with IEEE division (div.rn.f32), in three
// instructions per value and no branch: y = RN64(1 / scale) once per warp, then per value x * y
// in double, rounded to float. x * y is within 2^-52 relative of x / scale (two double
// roundings), while a quotient of two floats is never on a float rounding boundary (a midpoint
// needs 25 significant bits) nor closer to one than 2^-49 relative, so the rounding gives
// RN(x / scale). Double holds every such quotient and its reciprocal without overflow or
// underflow, so zeros, subnormals, infinities and NaN come out as IEEE division gives them.
// (div.rn.f32 carries a per-value slow-path call, which made the KV-only kernel spill under its
// register cap; a float reciprocal with remainder corrections costs eight instructions a value.)
template <bool kReciprocal>
struct Fp8Divisor {
  std::conditional_t<kReciprocal, float, double> y;  // RN32(1 / scale), or RN64(1 / scale)
};

template <bool kReciprocal>
__device__ __forceinline__ Fp8Divisor<kReciprocal> fp8_divisor(const float* scale_ptr) {
  if constexpr (kReciprocal) {
    // RN32(RN64(1 / scale)) == RN32(1 / scale) by the argument above (a quotient of floats is
    // never within 2^-49 of a float rounding boundary); __frcp_rn would carry a slow-path call
    // that spills under the KV-only kernel's register cap.
    return Fp8Divisor<kReciprocal>{__double2float_rn(__drcp_rn(static_cast<double>(__ldg(scale_ptr))))};
  } else {
    return Fp8Divisor<kReciprocal>{__drcp_rn(static_cast<double>(__ldg(scale_ptr)))};
  }
}

template <bool kReciprocal>
__device__ __forceinline__ float fp8_divide(float x, const Fp8Divisor<kReciprocal>& d) {
  if constexpr (kReciprocal) {
    return __fmul_rn(x, d.y);
  } else {
    return __double2float_rn(__dmul_rn(static_cast<double>(x), d.y));
  }
}

template <CacheKind kCache>
using DivisorOf = Fp8Divisor<CacheTraits<kCache>::kReciprocalScale>;

// round_before_quantize input_dtype: each value rounded to the kv dtype and widened back.
template <typename scalar_t>
__device__ __forceinline__ void round_to_input(float (&v)[kValuesPerLane]) {
#pragma unroll
  for (int i = 0; i < kValuesPerLane; i += 2) {
    const float2 f = ScalarOps<scalar_t>::to_float2(ScalarOps<scalar_t>::from_float2(v[i], v[i + 1]));
    v[i] = f.x;
    v[i + 1] = f.y;
  }
}

// slot_mapping: rows >= num_slots and negative slots are not written.
__device__ __forceinline__ int64_t load_slot(const RopeKvParams& p, int64_t token) {
  return token < p.num_slots ? __ldg(reinterpret_cast<const long long*>(p.slot_mapping) + token) : -1;
}

// L2 prefetch of one token's kv row (DSV41GEN_KV_ONLY_PREFETCH), issued by the caller's lane 0; a
// no-op before sm_90 and for tokens past the launch's.
template <typename scalar_t>
__device__ __forceinline__ void prefetch_kv_row(const RopeKvParams& p, int64_t token) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (token >= p.num_tokens) return;
  static_assert(kHeadDim * sizeof(scalar_t) % 16 == 0, "bulk prefetch sizes are multiples of 16 bytes");
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(static_cast<const scalar_t*>(p.kv) +
                                                                  token * kHeadDim),
               "r"(static_cast<unsigned>(kHeadDim * sizeof(scalar_t)))
               : "memory");
#endif
}

// Where one token's record and its scales are (record layout of the cache format).
template <CacheKind kCache>
__device__ __forceinline__ uint8_t* record_address(const RopeKvParams& p, int64_t block, int64_t in_block) {
  using Traits = CacheTraits<kCache>;
  uint8_t* block_base = p.k_cache + block * p.cache_block_stride;
  if constexpr (Traits::kLayout == RecordLayout::kPlainRow) {
    return block_base + in_block * p.cache_token_stride;
  } else if constexpr (Traits::kLayout == RecordLayout::kInterleaved) {
    return block_base + in_block * (Traits::kDataBytes + Traits::kScaleBytes);
  } else {
    return block_base + in_block * Traits::kDataBytes;
  }
}

template <CacheKind kCache>
__device__ __forceinline__ uint8_t* scales_address(
    const RopeKvParams& p, uint8_t* record, int64_t block, int64_t in_block) {
  using Traits = CacheTraits<kCache>;
  if constexpr (Traits::kLayout == RecordLayout::kInterleaved) {
    return record + Traits::kDataBytes;
  } else {
    return p.k_cache + block * p.cache_block_stride + static_cast<int64_t>(p.cache_block_size) * Traits::kDataBytes +
           in_block * Traits::kScaleBytes;
  }
}

// A token's kScaleBytes scale bytes, written by lane 0 with one store: slot i is the scale of
// lane i * kLanesPerScale, and slots past the e4m3 lanes are the pad bytes, 0. Two shuffles pack
// four slots into one word on lanes 0, 4 * kLanesPerScale, ...; lane 0 gathers those words.
template <CacheKind kCache>
__device__ __forceinline__ void store_scales(uint8_t* scales, int scale, int lane) {
  using Traits = CacheTraits<kCache>;
  constexpr int kLanes = Traits::kLanesPerScale;
  constexpr int kWords = Traits::kScaleBytes / 4;
  uint32_t word = lane < Traits::kFp8Lanes ? static_cast<uint32_t>(scale) : 0u;
  word |= __shfl_down_sync(kFullMask, word, kLanes) << 8;
  word |= __shfl_down_sync(kFullMask, word, 2 * kLanes) << 16;
  uint32_t words[kWords];
  words[0] = word;
#pragma unroll
  for (int w = 1; w < kWords; ++w) words[w] = __shfl_down_sync(kFullMask, word, 4 * kLanes * w);
  if (lane == 0) {
    if constexpr (kWords == 4) {
      store_record(reinterpret_cast<uint4*>(scales), make_uint4(words[0], words[1], words[2], words[3]));
    } else if constexpr (kWords == 2) {
      store_record(reinterpret_cast<uint2*>(scales), make_uint2(words[0], words[1]));
    } else {
      store_record(reinterpret_cast<unsigned int*>(scales), words[0]);
    }
  }
}

// Quantize (per cache format) and store this lane's part of one rotated kv row at slot (>= 0);
// divisor: the per-tensor fp8 scale (fp8_divisor), unused by the other formats.
template <typename scalar_t, CacheKind kCache>
__device__ __forceinline__ void store_kv_record(const RopeKvParams& p, int64_t block, int64_t in_block,
                                                float (&v)[kValuesPerLane], int lane,
                                                const DivisorOf<kCache>& divisor) {
  using Traits = CacheTraits<kCache>;
  uint8_t* record = record_address<kCache>(p, block, in_block);
  // round_before_quantize: of the values quantized to e4m3 (lanes [0, kFp8Lanes)) only the RoPE
  // lanes' can lie off the kv dtype's grid (the others are kv values, exactly widened), so only
  // they are rounded.
  if constexpr (Traits::kRoundToInput && Traits::kFp8Lanes > kRopeFirstLane) {
    if (lane >= kRopeFirstLane && lane < Traits::kFp8Lanes) round_to_input<scalar_t>(v);
  }
  int scale = 0;  // block-scaled formats: this lane's UE8M0 byte, stored last (v is dead then)
  if constexpr (Traits::kLanesPerScale > 0) {
    const float amax = group_amax<Traits::kLanesPerScale>(v);
    scale = ue8m0_scale<Traits::kNanScaleForInf>(amax, Traits::kAmaxFloor);
    if (lane < Traits::kFp8Lanes) {
      const float reciprocal = ue8m0_reciprocal<Traits::kNanScaleForInf>(scale);
#pragma unroll
      for (int i = 0; i < kValuesPerLane; ++i) v[i] = __fmul_rn(v[i], reciprocal);
      store_e4m3<false, Traits::kNanToNegativeMax>(record + lane * kValuesPerLane, v);
    }
  } else if constexpr (Traits::kPerTensorScale) {
    if (lane < Traits::kFp8Lanes) {
#pragma unroll
      for (int i = 0; i < kValuesPerLane; ++i) v[i] = fp8_divide(v[i], divisor);
      store_e4m3<true, Traits::kNanToNegativeMax>(record + lane * kValuesPerLane, v);
    }
  }
  if constexpr (Traits::kBf16Values > 0) {
    if (lane >= Traits::kFp8Lanes) {
      store_bf16(record + Traits::kFp8Values + (lane - Traits::kFp8Lanes) * kValuesPerLane * 2, v);
    }
  }
  if constexpr (Traits::kLanesPerScale > 0) {
    store_scales<kCache>(scales_address<kCache>(p, record, block, in_block), scale, lane);
  }
}

template <typename scalar_t, CacheKind kCache>
__device__ __forceinline__ void store_kv_row(
    const RopeKvParams& p, int64_t slot, float (&v)[kValuesPerLane], int lane, const DivisorOf<kCache>& divisor) {
  store_kv_record<scalar_t, kCache>(p, slot / p.cache_block_size, slot % p.cache_block_size, v, lane, divisor);
}

template <typename scalar_t, CacheKind kCache>
__device__ __forceinline__ void insert_kv(const RopeKvParams& p, int64_t token, int lane) {
  const int64_t slot = load_slot(p, token);
  const int64_t position = __ldg(reinterpret_cast<const long long*>(p.position_ids) + token);
  uint4 raw[2];
  load_raw(static_cast<const scalar_t*>(p.kv) + token * kHeadDim, lane, raw);
  if (slot < 0) return;  // slot_mapping: a negative slot skips the row
  float v[kValuesPerLane];
  widen<scalar_t>(raw, v);
  if (lane >= kRopeFirstLane) apply_rope<CacheTraits<kCache>::kRopeFma>(v, p.cos_sin_cache + position * kRopeDim, lane);
  DivisorOf<kCache> divisor{};
  if constexpr (CacheTraits<kCache>::kPerTensorScale) {
    divisor = fp8_divisor<CacheTraits<kCache>::kReciprocalScale>(p.fp8_scale);
  }
  store_kv_row<scalar_t, kCache>(p, slot, v, lane, divisor);
}

// An all-bf16 record (kFp8Lanes == 0), stored with each instruction writing 512 contiguous bytes
// instead of every lane's two vectors at a 32-byte stride (half sectors, twice the L2 requests):
// the lanes' packed vectors go through the warp's kHeadDim * 2-byte scratch row in row order
// (lane l writes chunks 2l, 2l + 1 and stores chunks l, l + 32). The caller's next write to
// scratch comes after a __syncwarp.
template <CacheKind kCache>
constexpr bool kCoalescedRowStore = DSV41GEN_KV_ONLY_COALESCED_BF16 && CacheTraits<kCache>::kFp8Lanes == 0 &&
                                     CacheTraits<kCache>::kBf16Values == kHeadDim;

template <CacheKind kCache>
__device__ __forceinline__ void store_bf16_row_coalesced(const RopeKvParams& p, int64_t block, int64_t in_block,
                                                         const float (&v)[kValuesPerLane], int lane, uint4* scratch) {
  static_assert(kValuesPerLane == 16, "two 16-byte bf16 vectors per lane");
  scratch[2 * lane] =
      make_uint4(bf16x2_bits(v[0], v[1]), bf16x2_bits(v[2], v[3]), bf16x2_bits(v[4], v[5]), bf16x2_bits(v[6], v[7]));
  scratch[2 * lane + 1] = make_uint4(bf16x2_bits(v[8], v[9]), bf16x2_bits(v[10], v[11]), bf16x2_bits(v[12], v[13]),
                                     bf16x2_bits(v[14], v[15]));
  __syncwarp();
  uint4* out = reinterpret_cast<uint4*>(record_address<kCache>(p, block, in_block));
  store_record(out + lane, scratch[lane]);
  store_record(out + kWarpSize + lane, scratch[kWarpSize + lane]);
  __syncwarp();
}

// A slot's (block, row in block): with block_shift >= 0 (a power-of-two block size, 1 <<
// block_shift) a shift and a mask, else a division. block_size_shift gives the shift once per
// warp; the register loops take it only as DSV41GEN_KV_ONLY_SHIFT_SLOTS says (register_loop_shift).
struct SlotInBlock {
  int64_t block;
  int64_t in_block;
};

__device__ __forceinline__ int block_size_shift(const RopeKvParams& p) {
  return (p.cache_block_size & (p.cache_block_size - 1)) == 0 ? __ffs(p.cache_block_size) - 1 : -1;
}

template <CacheKind kCache>
__device__ __forceinline__ int register_loop_shift(const RopeKvParams& p) {
  constexpr bool kShift = DSV41GEN_KV_ONLY_SHIFT_SLOTS == 1 ||
                          (DSV41GEN_KV_ONLY_SHIFT_SLOTS == 2 && CacheTraits<kCache>::kLanesPerScale > 0);
  return kShift ? block_size_shift(p) : -1;
}

__device__ __forceinline__ SlotInBlock split_slot(const RopeKvParams& p, int64_t slot, int block_shift) {
  const bool pow2 = block_shift >= 0;
  return SlotInBlock{pow2 ? slot >> block_shift : slot / p.cache_block_size,
                     pow2 ? slot & (p.cache_block_size - 1) : slot % p.cache_block_size};
}

// Store a rotated kv row at `at`: an all-bf16 record through the warp's scratch row
// (kCoalescedRowStore), any other record lane by lane (store_kv_record).
template <typename scalar_t, CacheKind kCache>
__device__ __forceinline__ void store_rotated_row(const RopeKvParams& p, const SlotInBlock& at,
                                                  float (&v)[kValuesPerLane], int lane,
                                                  const DivisorOf<kCache>& divisor, uint4* scratch) {
  if constexpr (kCoalescedRowStore<kCache>) {
    store_bf16_row_coalesced<kCache>(p, at.block, at.in_block, v, lane, scratch);
  } else {
    store_kv_record<scalar_t, kCache>(p, at.block, at.in_block, v, lane, divisor);
  }
}

// KV-only insert, warp-strided: this warp takes tokens token, token + stride, ... The loads of
// the next token (slot, position, kv row) are issued before the current token's cos/sin row is
// used and its record stored, so each token costs one memory round trip instead of two.
template <typename scalar_t, CacheKind kCache>
__device__ __forceinline__ void insert_kv_strided(const RopeKvParams& p, int64_t token, int64_t stride, int lane,
                                                  uint4* scratch) {
  if (token >= p.num_tokens) return;
  const scalar_t* kv = static_cast<const scalar_t*>(p.kv);
  const long long* positions = reinterpret_cast<const long long*>(p.position_ids);
  int64_t slot = load_slot(p, token);
  int64_t position = __ldg(positions + token);
  uint4 raw[2];
  load_raw(kv + token * kHeadDim, lane, raw);
  if constexpr (DSV41GEN_KV_ONLY_PREFETCH > 0) {
    // the rows 2 .. DSV41GEN_KV_ONLY_PREFETCH tokens ahead (1 ahead is loaded by the loop)
    if (lane == 0) {
#pragma unroll
      for (int i = 2; i <= DSV41GEN_KV_ONLY_PREFETCH; ++i) prefetch_kv_row<scalar_t>(p, token + i * stride);
    }
  }
  // The per-tensor scale, read once per warp, after the first token's loads are in flight.
  DivisorOf<kCache> divisor{};
  if constexpr (CacheTraits<kCache>::kPerTensorScale) {
    divisor = fp8_divisor<CacheTraits<kCache>::kReciprocalScale>(p.fp8_scale);
  }
  const int block_shift = register_loop_shift<kCache>(p);
  while (true) {
    float cos_v[kRopePairsPerLane];
    float sin_v[kRopePairsPerLane];
    if (slot >= 0 && lane >= kRopeFirstLane) load_cos_sin(p.cos_sin_cache + position * kRopeDim, lane, cos_v, sin_v);
    const int64_t next = token + stride;
    const bool has_next = next < p.num_tokens;
    int64_t next_slot = -1;
    int64_t next_position = 0;
    uint4 next_raw[2];
    if (has_next) {
      next_slot = load_slot(p, next);
      next_position = __ldg(positions + next);
      load_raw(kv + next * kHeadDim, lane, next_raw);
      if constexpr (DSV41GEN_KV_ONLY_PREFETCH > 0) {
        if (lane == 0) prefetch_kv_row<scalar_t>(p, token + (DSV41GEN_KV_ONLY_PREFETCH + 1) * stride);
      }
    }
    if (slot >= 0) {  // warp-uniform
      float v[kValuesPerLane];
      widen<scalar_t>(raw, v);
      if (lane >= kRopeFirstLane) rotate_pairs<CacheTraits<kCache>::kRopeFma>(v, cos_v, sin_v);
      store_rotated_row<scalar_t, kCache>(p, split_slot(p, slot, block_shift), v, lane, divisor, scratch);
    }
    if (!has_next) return;
    token = next;
    slot = next_slot;
    position = next_position;
    raw[0] = next_raw[0];
    raw[1] = next_raw[1];
  }
}

// Per-thread asynchronous copies (sm_80+): cp.async of 16 bytes, in commit groups;
// async_wait<n> waits until at most n of this thread's groups are in flight.
__device__ __forceinline__ void async_copy16(void* shared, const void* global) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(static_cast<unsigned>(__cvta_generic_to_shared(shared))),
               "l"(global)
               : "memory");
#endif
}

__device__ __forceinline__ void async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}

template <int kInFlight>
__device__ __forceinline__ void async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;" ::"n"(kInFlight) : "memory");
#endif
}

// A RoPE lane copies the cos and sin values it uses (cos_sin_row's, as load_cos_sin reads them)
// into its slots of ring (a per-warp [kRopeDim / 4] float4 row); every lane then closes the group.
__device__ __forceinline__ void copy_cos_sin_async(const float* cos_sin_row, int lane, bool copy, float4* ring) {
  if (copy && lane >= kRopeFirstLane) {
    const int first_pair = (lane - kRopeFirstLane) * kRopePairsPerLane;
#pragma unroll
    for (int k = 0; k < kRopePairsPerLane; k += 4) {
      async_copy16(ring + (first_pair + k) / 4, cos_sin_row + first_pair + k);
      async_copy16(ring + (kRopeDim / 2 + first_pair + k) / 4, cos_sin_row + kRopeDim / 2 + first_pair + k);
    }
  }
  async_commit();
}

// KV-only insert, warp-strided, with the cos/sin rows one token ahead (DSV41GEN_KV_ONLY_COS_SIN_AHEAD):
// as insert_kv_strided, but the slot and position are read two tokens ahead, and the next token's
// cos/sin row is copied into ring[(k + 1) % 2] while token k is rotated from ring[k % 2]. Each
// RoPE lane reads only what it copied, so no lane waits on another.
template <typename scalar_t, CacheKind kCache>
__device__ __forceinline__ void insert_kv_strided_ahead(const RopeKvParams& p, int64_t token, int64_t stride, int lane,
                                                        uint4* scratch, float4 (*ring)[kRopeDim / 4]) {
  if (token >= p.num_tokens) return;
  const scalar_t* kv = static_cast<const scalar_t*>(p.kv);
  const long long* positions = reinterpret_cast<const long long*>(p.position_ids);
  int64_t slot = load_slot(p, token);
  int64_t position = __ldg(positions + token);
  uint4 raw[2];
  load_raw(kv + token * kHeadDim, lane, raw);
  int64_t next = token + stride;
  int64_t next_slot = -1;
  int64_t next_position = 0;
  if (next < p.num_tokens) {
    next_slot = load_slot(p, next);
    next_position = __ldg(positions + next);
  }
  DivisorOf<kCache> divisor{};
  if constexpr (CacheTraits<kCache>::kPerTensorScale) {
    divisor = fp8_divisor<CacheTraits<kCache>::kReciprocalScale>(p.fp8_scale);
  }
  const int block_shift = register_loop_shift<kCache>(p);
  copy_cos_sin_async(p.cos_sin_cache + position * kRopeDim, lane, slot >= 0, ring[0]);
  int current = 0;  // ring row of this token
  while (true) {
    const bool has_next = next < p.num_tokens;
    const int64_t after = next + stride;
    int64_t after_slot = -1;
    int64_t after_position = 0;
    uint4 next_raw[2];
    if (has_next) {
      load_raw(kv + next * kHeadDim, lane, next_raw);
      if (after < p.num_tokens) {
        after_slot = load_slot(p, after);
        after_position = __ldg(positions + after);
      }
    }
    copy_cos_sin_async(p.cos_sin_cache + next_position * kRopeDim, lane, has_next && next_slot >= 0, ring[current ^ 1]);
    if (slot >= 0) {  // warp-uniform
      float v[kValuesPerLane];
      widen<scalar_t>(raw, v);
      if (lane >= kRopeFirstLane) {
        async_wait<1>();  // this token's group (the one just committed may still be in flight)
        float cos_v[kRopePairsPerLane];
        float sin_v[kRopePairsPerLane];
        read_cos_sin(ring[current], lane, cos_v, sin_v);
        rotate_pairs<CacheTraits<kCache>::kRopeFma>(v, cos_v, sin_v);
      }
      store_rotated_row<scalar_t, kCache>(p, split_slot(p, slot, block_shift), v, lane, divisor, scratch);
    }
    if (!has_next) return;
    token = next;
    slot = next_slot;
    position = next_position;
    raw[0] = next_raw[0];
    raw[1] = next_raw[1];
    next = after;
    next_slot = after_slot;
    next_position = after_position;
    current ^= 1;
  }
}

// ---- KV-only insert, bulk-copy pipeline (sm_90+) ----------------------------------------------
// Each warp keeps kKvOnlyStages tokens in flight without holding registers for them: lane 0
// copies a token's kv row and cos/sin row into a per-warp shared-memory stage with the copy
// engine (cp.async.bulk, one instruction per row), completing on the stage's mbarrier,
// kKvOnlyStages - 1 tokens ahead of the one being rotated and stored. The slots and positions of
// 32 tokens at a time are read by one load per lane (lane j: the warp's j-th next token) and
// broadcast by shuffles, so no token waits for its index loads. Used for the formats
// DSV41GEN_KV_ONLY_PIPELINE names (kKvOnlyPipelined): by default none since sweep 7, where the
// register loop with the cos/sin ring (insert_kv_strided_ahead) ran the block-scaled formats
// faster; it was their kernel before.
constexpr int kKvOnlyStages = DSV41GEN_KV_ONLY_STAGES;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
constexpr bool kBulkCopies = true;
#else
constexpr bool kBulkCopies = false;  // no copy engine (or the host pass): the register loop
#endif
// The formats DSV41GEN_KV_ONLY_PIPELINE puts on the pipeline (known to the host pass too), and
// those that run it: sm_90+ only.
template <CacheKind kCache>
constexpr bool kKvOnlyPipelineChosen =
    DSV41GEN_KV_ONLY_PIPELINE == 2 || (DSV41GEN_KV_ONLY_PIPELINE == 1 && CacheTraits<kCache>::kLanesPerScale > 0) ||
    (DSV41GEN_KV_ONLY_PIPELINE == 3 && CacheTraits<kCache>::kLanesPerScale > 0 && CacheTraits<kCache>::kBf16Values > 0);
template <CacheKind kCache>
constexpr bool kKvOnlyPipelined = kBulkCopies && kKvOnlyPipelineChosen<kCache>;
static_assert(kRopePairsPerLane % 4 == 0, "cos/sin are moved as float4");

// The KV-only kernels whose register loop keeps the next token's cos/sin row in flight
// (DSV41GEN_KV_ONLY_COS_SIN_AHEAD).
template <CacheKind kCache>
constexpr bool kKvOnlyCosSinAhead =
    DSV41GEN_KV_ONLY_COS_SIN_AHEAD == 1 || (DSV41GEN_KV_ONLY_COS_SIN_AHEAD == 2 && CacheTraits<kCache>::kLanesPerScale > 0);

// The KV-only kernels that trigger the next grid at their start (DSV41GEN_KV_ONLY_EARLY_TRIGGER).
template <CacheKind kCache>
constexpr bool kKvOnlyEarlyTrigger =
    DSV41GEN_KV_ONLY_EARLY_TRIGGER == 2 ||
    (DSV41GEN_KV_ONLY_EARLY_TRIGGER == 1 && !kKvOnlyPipelined<kCache> && !kCoalescedRowStore<kCache>);

// One token of one warp, as in memory: the kv row (lane l's two vectors are chunks 2l, 2l + 1),
// then the cos/sin row.
template <typename scalar_t>
struct KvStage {
  static_assert(kValuesPerLane * sizeof(scalar_t) == 2 * sizeof(uint4), "a lane moves two 16-byte vectors");
  uint4 kv[2 * kWarpSize];
  float4 cos_sin[kRopeDim / 4];
};

// mbarrier helpers (sm_90+): a stage's barrier completes once the bytes it expects have landed.
__device__ __forceinline__ unsigned shared_address(const void* pointer) {
  return static_cast<unsigned>(__cvta_generic_to_shared(pointer));
}

__device__ __forceinline__ void barrier_init(uint64_t* barrier) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(barrier)) : "memory");
#endif
}

__device__ __forceinline__ void barrier_init_fence() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
}

__device__ __forceinline__ void barrier_expect(uint64_t* barrier, unsigned bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(barrier)), "r"(bytes)
               : "memory");
#endif
}

__device__ __forceinline__ void barrier_wait(uint64_t* barrier, unsigned parity) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile(
      "{\n"
      ".reg .pred done;\n"
      "WAIT:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra WAIT;\n"
      "}\n" ::"r"(shared_address(barrier)),
      "r"(parity)
      : "memory");
#endif
}

__device__ __forceinline__ void bulk_copy(void* shared, const void* global, unsigned bytes, uint64_t* barrier) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
          shared_address(shared)),
      "l"(global), "r"(bytes), "r"(shared_address(barrier))
      : "memory");
#endif
}

// Slot and position of the warp's token k = base + lane (slot -1 past the warp's last token).
struct IndexBatch {
  int64_t slot;
  int64_t position;
};

__device__ __forceinline__ IndexBatch load_index_batch(
    const RopeKvParams& p, int64_t first, int64_t stride, int64_t count, int64_t base, int lane) {
  const int64_t k = base + lane;
  if (k >= count) return IndexBatch{-1, 0};
  const int64_t token = first + k * stride;
  return IndexBatch{load_slot(p, token), __ldg(reinterpret_cast<const long long*>(p.position_ids) + token)};
}

// Lane 0 issues the copies of token (slot, position, kv row) into stage, to complete on barrier;
// rows with a negative slot are not read.
template <typename scalar_t>
__device__ __forceinline__ void issue_kv_stage(const RopeKvParams& p, const scalar_t* kv_row, int64_t slot,
                                               int64_t position, int lane, KvStage<scalar_t>& stage,
                                               uint64_t* barrier) {
  if (slot < 0 || lane != 0) return;  // slot: warp-uniform
  barrier_expect(barrier, sizeof(stage.kv) + sizeof(stage.cos_sin));
  bulk_copy(stage.kv, kv_row, sizeof(stage.kv), barrier);
  bulk_copy(stage.cos_sin, p.cos_sin_cache + position * kRopeDim, sizeof(stage.cos_sin), barrier);
}

// KV-only insert, pipelined: this warp takes tokens first, first + stride, ... Every lane waits on
// a stage's barrier before reading it (the barrier's phases alternate, one per copied token); a
// __syncwarp orders every lane's reads of a stage before lane 0 refills it.
template <typename scalar_t, CacheKind kCache>
__device__ __forceinline__ void insert_kv_pipelined(const RopeKvParams& p, int64_t first, int64_t stride, int lane,
                                                    KvStage<scalar_t> (&stages)[kKvOnlyStages],
                                                    uint64_t (&barriers)[kKvOnlyStages]) {
  static_assert(kKvOnlyStages >= 2 && kKvOnlyStages <= kWarpSize, "2 .. 32 stages");
  if (first >= p.num_tokens) return;
  if (lane == 0) {
#pragma unroll
    for (int i = 0; i < kKvOnlyStages; ++i) barrier_init(&barriers[i]);
    barrier_init_fence();
  }
  __syncwarp();
  unsigned phases = 0;  // bit i: the parity of stage i's next completion
  const int64_t count = (p.num_tokens - 1 - first) / stride + 1;
  const scalar_t* kv = static_cast<const scalar_t*>(p.kv);
  IndexBatch current = load_index_batch(p, first, stride, count, 0, lane);
  IndexBatch next = load_index_batch(p, first, stride, count, kWarpSize, lane);
  // The slot and position of the warp's token j, current batch from base (base <= j < base + 64).
  const auto index_of = [&](int64_t j, int64_t base) {
    const int offset = static_cast<int>(j - base);
    const bool in_next = offset >= kWarpSize;  // warp-uniform
    const long long slot = in_next ? next.slot : current.slot;
    const long long position = in_next ? next.position : current.position;
    return IndexBatch{__shfl_sync(kFullMask, slot, offset % kWarpSize),
                      __shfl_sync(kFullMask, position, offset % kWarpSize)};
  };
  DivisorOf<kCache> divisor{};
  if constexpr (CacheTraits<kCache>::kPerTensorScale) {
    divisor = fp8_divisor<CacheTraits<kCache>::kReciprocalScale>(p.fp8_scale);
  }
#pragma unroll
  for (int j = 0; j < kKvOnlyStages - 1; ++j) {
    if (j < count) {
      const IndexBatch index = index_of(j, 0);
      issue_kv_stage(p, kv + (first + j * stride) * kHeadDim, index.slot, index.position, lane, stages[j],
                     &barriers[j]);
    }
  }
  if constexpr (DSV41GEN_KV_ONLY_PREFETCH > 0) {
    // the rows of the DSV41GEN_KV_ONLY_PREFETCH tokens after the ones copied now
    if (lane == 0) {
#pragma unroll
      for (int i = 0; i < DSV41GEN_KV_ONLY_PREFETCH; ++i) {
        prefetch_kv_row<scalar_t>(p, first + (kKvOnlyStages - 1 + i) * stride);
      }
    }
  }
  const int block_shift = block_size_shift(p);
  int64_t base = 0;  // k of the current batch's lane 0
  int stage = 0;     // k % kKvOnlyStages
  for (int64_t k = 0; k < count; ++k) {
    if (k - base == kWarpSize) {
      base += kWarpSize;
      current = next;
      next = load_index_batch(p, first, stride, count, base + kWarpSize, lane);
    }
    __syncwarp();  // every lane is done with the stage refilled now (token k - 1's)
    const int64_t j = k + kKvOnlyStages - 1;  // the token whose copies are issued now
    const int refill = stage == 0 ? kKvOnlyStages - 1 : stage - 1;
    if (j < count) {
      const IndexBatch index = index_of(j, base);
      issue_kv_stage(p, kv + (first + j * stride) * kHeadDim, index.slot, index.position, lane, stages[refill],
                     &barriers[refill]);
      if constexpr (DSV41GEN_KV_ONLY_PREFETCH > 0) {
        if (lane == 0) prefetch_kv_row<scalar_t>(p, first + (j + DSV41GEN_KV_ONLY_PREFETCH) * stride);
      }
    }
    const int64_t slot = __shfl_sync(kFullMask, static_cast<long long>(current.slot), static_cast<int>(k - base));
    if (slot >= 0) {  // warp-uniform
      barrier_wait(&barriers[stage], (phases >> stage) & 1u);
      phases ^= 1u << stage;
      const KvStage<scalar_t>& s = stages[stage];
      const uint4 raw[2] = {s.kv[2 * lane], s.kv[2 * lane + 1]};
      float v[kValuesPerLane];
      widen<scalar_t>(raw, v);
      if (lane >= kRopeFirstLane) {
        float cos_v[kRopePairsPerLane];
        float sin_v[kRopePairsPerLane];
        read_cos_sin(s.cos_sin, lane, cos_v, sin_v);
        rotate_pairs<CacheTraits<kCache>::kRopeFma>(v, cos_v, sin_v);
      }
      // An all-bf16 record goes through the stage, which is done with (the copy of a later token
      // waits for the __syncwarp at the top of the loop); its generic-proxy writes are fenced
      // before that copy (async proxy).
      store_rotated_row<scalar_t, kCache>(p, split_slot(p, slot, block_shift), v, lane, divisor, stages[stage].kv);
      if constexpr (kCoalescedRowStore<kCache>) asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    }
    stage = stage == kKvOnlyStages - 1 ? 0 : stage + 1;
  }
}

// Weightless RMSNorm of one Q row over kHeadDim (q_rms_norm): each lane sums its squares in
// order, then a butterfly.
__device__ __forceinline__ void q_rms_norm(float (&v)[kValuesPerLane], float eps) {
  float sum = __fmul_rn(v[0], v[0]);
#pragma unroll
  for (int i = 1; i < kValuesPerLane; ++i) {
    sum = kQNormFmaRsqrt ? __fmaf_rn(v[i], v[i], sum) : __fadd_rn(sum, __fmul_rn(v[i], v[i]));
  }
#pragma unroll
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
    sum = __fadd_rn(sum, __shfl_xor_sync(kFullMask, sum, offset));
  }
  static_assert((kHeadDim & (kHeadDim - 1)) == 0, "1 / kHeadDim must be exact");
  const float inv_rms =
      kQNormFmaRsqrt ? rsqrtf(__fmaf_rn(sum, 1.0f / kHeadDim, eps))
                     : __fdiv_rn(1.0f, __fsqrt_rn(__fadd_rn(__fdiv_rn(sum, static_cast<float>(kHeadDim)), eps)));
#pragma unroll
  for (int i = 0; i < kValuesPerLane; ++i) v[i] = __fmul_rn(v[i], inv_rms);
}

template <typename scalar_t, int kNumHeadsQPadded, bool kApplyQNorm>
__device__ __forceinline__ void rotate_q(const RopeKvParams& p, int64_t token, int head, int lane) {
  scalar_t* out = static_cast<scalar_t*>(p.q_out) + (token * kNumHeadsQPadded + head) * kHeadDim;
  if (head >= p.num_heads_q) {  // padded head: zero fill
    store_zero_values(out, lane);
    return;
  }
  const int64_t position = p.position_ids[token];
  float v[kValuesPerLane];
  load_values(static_cast<const scalar_t*>(p.q_in) + (token * p.num_heads_q + head) * kHeadDim, lane, v);
  if constexpr (kApplyQNorm) q_rms_norm(v, p.eps);
  if (lane >= kRopeFirstLane) apply_rope<kQRopeFma>(v, p.cos_sin_cache + position * kRopeDim, lane);
  store_values(out, lane, v);
}

template <typename scalar_t, int kNumHeadsQPadded, bool kApplyQNorm, CacheKind kCache>
__device__ __forceinline__ void process_slot(const RopeKvParams& p, int64_t token, int slot, int lane) {
  if constexpr (kNumHeadsQPadded > 0) {
    if (slot < kNumHeadsQPadded) {
      rotate_q<scalar_t, kNumHeadsQPadded, kApplyQNorm>(p, token, slot, lane);
      return;
    }
  }
  insert_kv<scalar_t, kCache>(p, token, lane);
}

// ---- Q + KV schedules (DSV41GEN_QKV_SCHEDULE 1-4) ---------------------------------------------
// The same per-row math as rotate_q and insert_kv, split at the row load so that a warp can have
// its next row in flight while it rotates and stores the current one.

// This lane's two raw vectors of the row a slot reads: a live Q head's q_in row or the kv row
// (padded heads read nothing and get zeros).
template <typename scalar_t, int kNumHeadsQPadded>
__device__ __forceinline__ void load_slot_row(const RopeKvParams& p, int64_t token, int slot, int lane,
                                              uint4 (&raw)[2]) {
  if (slot == kNumHeadsQPadded) {
    load_raw(static_cast<const scalar_t*>(p.kv) + token * kHeadDim, lane, raw);
  } else if (slot < p.num_heads_q) {
    const uint4* src = reinterpret_cast<const uint4*>(static_cast<const scalar_t*>(p.q_in) +
                                                      (token * p.num_heads_q + slot) * kHeadDim + lane * kValuesPerLane);
    raw[0] = src[0];
    raw[1] = src[1];
  } else {
    raw[0] = make_uint4(0, 0, 0, 0);
    raw[1] = make_uint4(0, 0, 0, 0);
  }
}

// One slot of one token whose row is loaded (load_slot_row): a Q head (RMSNorm, RoPE, q_out), a
// padded head (zeros) or the KV row (RoPE, quantize, insert at kv_slot, the token's cache slot).
// cos_sin_row is the token's row of the cos/sin cache.
template <typename scalar_t, int kNumHeadsQPadded, bool kApplyQNorm, CacheKind kCache>
__device__ __forceinline__ void process_loaded_slot(const RopeKvParams& p, int64_t token, int slot, int64_t kv_slot,
                                                    const float* cos_sin_row, const uint4 (&raw)[2], int lane) {
  if (slot < kNumHeadsQPadded) {
    scalar_t* out = static_cast<scalar_t*>(p.q_out) + (token * kNumHeadsQPadded + slot) * kHeadDim;
    if (slot >= p.num_heads_q) {
      store_zero_values(out, lane);
      return;
    }
    float v[kValuesPerLane];
    widen<scalar_t>(raw, v);
    if constexpr (kApplyQNorm) q_rms_norm(v, p.eps);
    if (lane >= kRopeFirstLane) apply_rope<kQRopeFma>(v, cos_sin_row, lane);
    store_values(out, lane, v);
    return;
  }
  if (kv_slot < 0) return;  // slot_mapping: a negative slot skips the row
  float v[kValuesPerLane];
  widen<scalar_t>(raw, v);
  if (lane >= kRopeFirstLane) apply_rope<CacheTraits<kCache>::kRopeFma>(v, cos_sin_row, lane);
  DivisorOf<kCache> divisor{};
  if constexpr (CacheTraits<kCache>::kPerTensorScale) {
    divisor = fp8_divisor<CacheTraits<kCache>::kReciprocalScale>(p.fp8_scale);
  }
  store_kv_row<scalar_t, kCache>(p, kv_slot, v, lane, divisor);
}

// DSV41GEN_QKV_SCHEDULE 1: this warp's slots warp, warp + kWarpsPerBlock, ... of one token (the
// reduced grid's CTA), the token's position and cache slot read once, the next slot's row
// loaded before the current one is rotated and stored.
template <typename scalar_t, int kNumHeadsQPadded, bool kApplyQNorm, CacheKind kCache>
__device__ __forceinline__ void qkv_token_prefetched(const RopeKvParams& p, int64_t token, int warp, int lane) {
  constexpr int kSlotsPerToken = kNumHeadsQPadded + 1;
  constexpr int kKvWarp = kNumHeadsQPadded % kWarpsPerBlock;  // the warp whose slots include the KV slot
  if (warp >= kSlotsPerToken) return;
  const int64_t position = __ldg(reinterpret_cast<const long long*>(p.position_ids) + token);
  const int64_t kv_slot = warp == kKvWarp ? load_slot(p, token) : -1;
  int slot = warp;
  uint4 raw[2];
  load_slot_row<scalar_t, kNumHeadsQPadded>(p, token, slot, lane, raw);
  while (true) {
    const int next = slot + kWarpsPerBlock;
    uint4 next_raw[2];
    if (next < kSlotsPerToken) load_slot_row<scalar_t, kNumHeadsQPadded>(p, token, next, lane, next_raw);
    process_loaded_slot<scalar_t, kNumHeadsQPadded, kApplyQNorm, kCache>(
        p, token, slot, kv_slot, p.cos_sin_cache + position * kRopeDim, raw, lane);
    if (next >= kSlotsPerToken) return;
    slot = next;
    raw[0] = next_raw[0];
    raw[1] = next_raw[1];
  }
}

// DSV41GEN_QKV_SCHEDULE 2, 3 and 4: the balanced strided grid. Item i of the flattened space is slot
// i % kSlotsPerToken of token i / kSlotsPerToken; global warp w takes items w, w + W, ... (W
// warps in the grid, one wave of resident blocks: qkv_strided_blocks), each item's row, position
// and cache slot loaded while the previous item is rotated and stored. A block's warps take
// consecutive items, mostly of one token, so its cos/sin row is read once per multiprocessor.
template <typename scalar_t, int kNumHeadsQPadded, bool kApplyQNorm, CacheKind kCache>
__global__ void __launch_bounds__(kThreadsPerBlock) qkv_strided_kernel(const RopeKvParams params) {
  constexpr int kSlotsPerToken = kNumHeadsQPadded + 1;
  const int warp = static_cast<int>(threadIdx.x) / kWarpSize;
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * kWarpsPerBlock;
  const int64_t items = params.num_tokens * kSlotsPerToken;
  int64_t item = static_cast<int64_t>(blockIdx.x) * kWarpsPerBlock + warp;
  const long long* positions = reinterpret_cast<const long long*>(params.position_ids);
  wait_for_previous_grid();
  if (item < items) {
    int64_t token = item / kSlotsPerToken;
    int slot = static_cast<int>(item - token * kSlotsPerToken);
    int64_t position = __ldg(positions + token);
    int64_t kv_slot = slot == kNumHeadsQPadded ? load_slot(params, token) : -1;
    uint4 raw[2];
    load_slot_row<scalar_t, kNumHeadsQPadded>(params, token, slot, lane, raw);
    while (true) {
      const int64_t next = item + stride;
      const bool has_next = next < items;
      int64_t next_token = 0;
      int next_slot = 0;
      int64_t next_position = 0;
      int64_t next_kv_slot = -1;
      uint4 next_raw[2];
      if (has_next) {
        next_token = next / kSlotsPerToken;
        next_slot = static_cast<int>(next - next_token * kSlotsPerToken);
        next_position = __ldg(positions + next_token);
        if (next_slot == kNumHeadsQPadded) next_kv_slot = load_slot(params, next_token);
        load_slot_row<scalar_t, kNumHeadsQPadded>(params, next_token, next_slot, lane, next_raw);
      }
      process_loaded_slot<scalar_t, kNumHeadsQPadded, kApplyQNorm, kCache>(
          params, token, slot, kv_slot, params.cos_sin_cache + position * kRopeDim, raw, lane);
      if (!has_next) break;
      item = next;
      token = next_token;
      slot = next_slot;
      position = next_position;
      kv_slot = next_kv_slot;
      raw[0] = next_raw[0];
      raw[1] = next_raw[1];
    }
  }
  allow_next_grid();
}

// Resident blocks of kernel per multiprocessor at kThreadsPerBlock threads (the occupancy
// calculator), at least 1: a failed query, or an answer of 0, counts as 1. The callers keep the
// answer in a static (one query per kernel and process).
template <typename Kernel>
int resident_blocks_per_sm(Kernel kernel) {
  int n = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, kThreadsPerBlock, 0) != cudaSuccess) n = 0;
  return n > 0 ? n : 1;
}

// Blocks of a grid-stride grid over items (one warp each): one warp per item, never more than
// one wave of per_sm blocks on each multiprocessor of the current device; past that the warps
// stride over the items.
inline cudaError_t one_wave_blocks(int64_t items, int per_sm, int64_t& blocks) {
  int device = 0;
  int sms = 0;
  cudaError_t error = cudaGetDevice(&device);
  if (error == cudaSuccess) error = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  if (error != cudaSuccess) return error;
  const int64_t one_per_warp = (items + kWarpsPerBlock - 1) / kWarpsPerBlock;
  const int64_t wave = static_cast<int64_t>(sms) * per_sm;
  blocks = one_per_warp < wave ? one_per_warp : wave;
  return cudaSuccess;
}

// Blocks of the strided grid: one warp per item up to one full wave of resident blocks
// (multiprocessors x resident blocks per multiprocessor, from the occupancy calculator).
template <typename scalar_t, int kNumHeadsQPadded, bool kApplyQNorm, CacheKind kCache>
cudaError_t qkv_strided_blocks(int64_t num_tokens, int64_t& blocks) {
  static const int blocks_per_sm =
      resident_blocks_per_sm(qkv_strided_kernel<scalar_t, kNumHeadsQPadded, kApplyQNorm, kCache>);
  return one_wave_blocks(num_tokens * (kNumHeadsQPadded + 1), blocks_per_sm, blocks);
}

template <typename scalar_t, int kNumHeadsQPadded, bool kApplyQNorm, CacheKind kCache>
__global__ void __launch_bounds__(kThreadsPerBlock)
    rope_kv_insert_kernel(const RopeKvParams params, const bool reduced_grid) {
  constexpr int kSlotsPerToken = kNumHeadsQPadded + 1;  // the Q slots, then the KV slot
  const int warp = static_cast<int>(threadIdx.x) / kWarpSize;
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
  wait_for_previous_grid();
  if (reduced_grid) {
    // Reduced grid: one CTA per token, its warps stride over the token's slots.
    const int64_t token = blockIdx.x;
    if constexpr (DSV41GEN_QKV_SCHEDULE == 1 && kNumHeadsQPadded > 0) {
      qkv_token_prefetched<scalar_t, kNumHeadsQPadded, kApplyQNorm, kCache>(params, token, warp, lane);
    } else {
      for (int slot = warp; slot < kSlotsPerToken; slot += kWarpsPerBlock) {
        process_slot<scalar_t, kNumHeadsQPadded, kApplyQNorm, kCache>(params, token, slot, lane);
      }
    }
  } else {
    // Warp-per-slot grid: global warp w takes slot w % kSlotsPerToken of token w / kSlotsPerToken.
    const int64_t global_warp = static_cast<int64_t>(blockIdx.x) * kWarpsPerBlock + warp;
    const int64_t token = global_warp / kSlotsPerToken;
    if (token < params.num_tokens) {
      process_slot<scalar_t, kNumHeadsQPadded, kApplyQNorm, kCache>(
          params, token, static_cast<int>(global_warp % kSlotsPerToken), lane);
    }
  }
  allow_next_grid();
}

// The KV-only warp-per-slot grid (a kernel of its own, so that the reduced grid keeps its register
// budget): global warp w takes tokens w, w + W, w + 2W, ... (W warps in the grid). The registers
// are capped for kKvOnlyBlocksPerSm resident blocks per multiprocessor: each warp keeps its next
// token's loads in flight, so resident warps are what sets the bandwidth.

template <typename scalar_t, CacheKind kCache>
__global__ void __launch_bounds__(kThreadsPerBlock, kKvOnlyMinBlocks)
    kv_only_strided_kernel(const RopeKvParams params) {
  const int warp = static_cast<int>(threadIdx.x) / kWarpSize;
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
  const int64_t global_warp = static_cast<int64_t>(blockIdx.x) * kWarpsPerBlock + warp;
  wait_for_previous_grid();
  if constexpr (kKvOnlyEarlyTrigger<kCache>) allow_next_grid();
  const int64_t stride = static_cast<int64_t>(gridDim.x) * kWarpsPerBlock;
  if constexpr (kKvOnlyPipelined<kCache>) {
    __shared__ KvStage<scalar_t> stages[kWarpsPerBlock][kKvOnlyStages];
    __shared__ uint64_t barriers[kWarpsPerBlock][kKvOnlyStages];
    insert_kv_pipelined<scalar_t, kCache>(params, global_warp, stride, lane, stages[warp], barriers[warp]);
  } else {
    // the warp's scratch row, for the all-bf16 record's coalesced store only
    uint4* scratch = nullptr;
    if constexpr (kCoalescedRowStore<kCache>) {
      __shared__ uint4 rows[kWarpsPerBlock][kHeadDim * sizeof(__nv_bfloat16) / sizeof(uint4)];
      scratch = rows[warp];
    }
    if constexpr (kKvOnlyCosSinAhead<kCache>) {
      __shared__ float4 rings[kWarpsPerBlock][2][kRopeDim / 4];
      insert_kv_strided_ahead<scalar_t, kCache>(params, global_warp, stride, lane, scratch, rings[warp]);
    } else {
      insert_kv_strided<scalar_t, kCache>(params, global_warp, stride, lane, scratch);
    }
  }
  if constexpr (!kKvOnlyEarlyTrigger<kCache>) allow_next_grid();
}

// Blocks of the KV-only warp-per-slot grid: one warp per token up to one full wave of resident
// blocks (multiprocessors x resident blocks per multiprocessor, from the occupancy calculator),
// never more; past that the warps stride over the tokens, each prefetching its next token.
// From a large token count on, some formats take fewer blocks per multiprocessor (fewer warps,
// each over more tokens), as measured on an H200:
// - the all-bf16 record (kFp8Lanes == 0), DSV41GEN_KV_ONLY_BF16_LARGE_BLOCKS (3 of 4 resident)
//   from DSV41GEN_KV_ONLY_BF16_LARGE_TOKENS: 1.6-2.6 points of copy faster at 131072-262144
//   tokens and 1-2 points slower at 32768-98304 (benchmarks/results/rope_kv_kv_only_sweep3_h200.json);
// - the block-scaled formats on the register loop, DSV41GEN_KV_ONLY_SCALED_LARGE_BLOCKS (3)
//   from DSV41GEN_KV_ONLY_SCALED_LARGE_TOKENS (196608): with the cos/sin ring and the slot
//   shifts, 0.8-2.4 points faster at 196608-262144 tokens, but 2.1-2.6 slower at 131072 and
//   2.4-7.7 slower at 16384-98304; 2 blocks lost 7-11 points against 3 at 131072-262144
//   (benchmarks/results/rope_kv_kv_only_sweep8_h200.json). On the pipeline they lost with it wherever
//   graphs launch it back to back (sweep 3), so it does not apply to the formats
//   DSV41GEN_KV_ONLY_PIPELINE puts there (before sm_90 those run the register loop on the full
//   wave).
template <CacheKind kCache>
constexpr int64_t kKvOnlyLargeTokens =
    CacheTraits<kCache>::kFp8Lanes == 0 ? DSV41GEN_KV_ONLY_BF16_LARGE_TOKENS
    : CacheTraits<kCache>::kLanesPerScale > 0 && !kKvOnlyPipelineChosen<kCache> ? DSV41GEN_KV_ONLY_SCALED_LARGE_TOKENS
                                                                                : 0;
template <CacheKind kCache>
constexpr int kKvOnlyLargeBlocks =
    CacheTraits<kCache>::kFp8Lanes == 0 ? DSV41GEN_KV_ONLY_BF16_LARGE_BLOCKS : DSV41GEN_KV_ONLY_SCALED_LARGE_BLOCKS;

template <typename scalar_t, CacheKind kCache>
cudaError_t kv_only_blocks(int64_t num_tokens, int64_t& blocks) {
  static const int blocks_per_sm = resident_blocks_per_sm(kv_only_strided_kernel<scalar_t, kCache>);
  int per_sm = blocks_per_sm;
  if (DSV41GEN_KV_ONLY_WAVE_BLOCKS > 0 && per_sm > DSV41GEN_KV_ONLY_WAVE_BLOCKS) per_sm = DSV41GEN_KV_ONLY_WAVE_BLOCKS;
  if (kKvOnlyLargeTokens<kCache> > 0 && num_tokens >= kKvOnlyLargeTokens<kCache> &&
      per_sm > kKvOnlyLargeBlocks<kCache>) {
    per_sm = kKvOnlyLargeBlocks<kCache>;
  }
  return one_wave_blocks(num_tokens, per_sm, blocks);
}

// Launch with cudaLaunchKernelEx; on devices of compute capability major >= kPdlMinMajor the
// launch allows programmatic stream serialization (PDL), as vLLM 0.33.0's launchers do. What was
// passed is kept in last_launch_* for the tests (_debug_last_launch).
template <typename Kernel, typename... Args>
cudaError_t launch_kernel(Kernel kernel, int64_t blocks, cudaStream_t stream, Args... args) {
  int device = 0;
  int major = 0;
  cudaError_t error = cudaGetDevice(&device);
  if (error == cudaSuccess) error = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  if (error != cudaSuccess) return error;
  cudaLaunchAttribute attributes[1];
  attributes[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attributes[0].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned>(blocks));
  config.blockDim = dim3(kThreadsPerBlock);
  config.dynamicSmemBytes = 0;
  config.stream = stream;
  config.attrs = attributes;
  config.numAttrs = major >= kPdlMinMajor && pdl_allowed.load() ? 1 : 0;
  last_launch_serialization.store(config.numAttrs == 1);
  last_launch_blocks.store(blocks);
  last_launch_threads.store(kThreadsPerBlock);
  error = cudaLaunchKernelEx(&config, kernel, args...);
  return error == cudaSuccess ? cudaGetLastError() : error;
}

template <typename scalar_t, int kNumHeadsQPadded, bool kApplyQNorm, CacheKind kCache>
cudaError_t launch_rope_kv_insert(const RopeKvParams& params, GridChoice grid, cudaStream_t stream) {
  const int64_t num_tokens = params.num_tokens;
  if (num_tokens == 0) return cudaSuccess;
  // The variant's grid rule (use_warp_per_slot), unless a benchmark or test forces a grid.
  const bool warp_per_slot = grid == GridChoice::kRule ? use_warp_per_slot<kNumHeadsQPadded>(num_tokens)
                                                       : grid == GridChoice::kWarpPerSlot;
  if constexpr (kNumHeadsQPadded == 0) {
    if (warp_per_slot) {
      int64_t blocks = 0;
      const cudaError_t error = kv_only_blocks<scalar_t, kCache>(num_tokens, blocks);
      if (error != cudaSuccess) return error;
      return launch_kernel(kv_only_strided_kernel<scalar_t, kCache>, blocks, stream, params);
    }
  }
  if constexpr (kNumHeadsQPadded > 0 && DSV41GEN_QKV_SCHEDULE >= 2) {
    // The strided grid instead of the reduced one (2), of both grids (3) or of the warp-per-slot
    // one (4); a forced warp-per-slot grid (a test's or the benchmark's comparison) stays one warp
    // per (token, slot).
    const bool strided = DSV41GEN_QKV_SCHEDULE == 2   ? !warp_per_slot
                         : DSV41GEN_QKV_SCHEDULE == 3 ? !warp_per_slot || grid != GridChoice::kWarpPerSlot
                                                      : warp_per_slot && grid != GridChoice::kWarpPerSlot;
    if (strided) {
      int64_t blocks = 0;
      const cudaError_t error = qkv_strided_blocks<scalar_t, kNumHeadsQPadded, kApplyQNorm, kCache>(num_tokens, blocks);
      if (error != cudaSuccess) return error;
      return launch_kernel(qkv_strided_kernel<scalar_t, kNumHeadsQPadded, kApplyQNorm, kCache>, blocks, stream, params);
    }
  }
  const int64_t blocks =
      warp_per_slot ? (num_tokens * (kNumHeadsQPadded + 1) + kWarpsPerBlock - 1) / kWarpsPerBlock : num_tokens;
  return launch_kernel(
      rope_kv_insert_kernel<scalar_t, kNumHeadsQPadded, kApplyQNorm, kCache>, blocks, stream, params, !warp_per_slot);
}
