// Declarations of the fused RoPE + KV-insert kernel family, the same for every variant: the
// enumerations of what this emitter implements, the launch parameters and record, and the
// launcher and host dispatch. Torch-free. Not included directly: a variant's generated
// rope_kv_config.h names the variant's namespace (DSV41GEN_ROPE_KV_NAMESPACE), includes this
// header, then declares what the variant's spec decides (constants, the compiled sets,
// CacheTraits per cache format, the grid rule) in that namespace.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#ifndef DSV41GEN_ROPE_KV_NAMESPACE
  #error "include a variant's generated rope_kv_config.h, which names its namespace"
#endif

namespace DSV41GEN_ROPE_KV_NAMESPACE::rope_kv {

// The input dtypes this emitter implements; a variant compiles those of its
// kernels.rope_kv_insert.input_dtypes (kInputDtypes in its config).
enum class ScalarKind { kBFloat16, kHalf };

template <ScalarKind kScalar>
struct ScalarTypeOf;
template <>
struct ScalarTypeOf<ScalarKind::kBFloat16> {
  using type = __nv_bfloat16;
};
template <>
struct ScalarTypeOf<ScalarKind::kHalf> {
  using type = __half;
};

// The cache format kinds (cache_formats.*.kind); a variant compiles those of its cache_formats
// (kCacheFormats), each described by its CacheTraits specialization.
enum class CacheKind { kBf16, kFp8, kFp8DsMla, kMxfp8 };

// k_cache's dtype (cache_formats.*.cache_dtype).
enum class CacheDtype { kUint8, kBFloat16, kFloat8E4m3fn };

// How a cache record is laid out in its block (cache_formats.*.layout).
enum class RecordLayout {
  kPlainRow,             // one row per token, at the cache's token stride
  kTokenDataThenScales,  // block_size token records, then block_size scale records
  kInterleaved,          // per token: its data, then its own scales
};

// Byte layout and numerics of one cache record of a format: specialized in the variant's config
// for each format it compiles.
template <CacheKind kCache>
struct CacheTraits;

// What the last launch passed to cudaLaunchKernelEx (read by _debug_last_launch): whether it set
// cudaLaunchAttributeProgrammaticStreamSerialization, its blocks and threads per block. (Three
// lock-free atomics: an atomic struct would need libatomic, which the extension does not link.)
inline std::atomic<bool> last_launch_serialization{false};
inline std::atomic<int64_t> last_launch_blocks{0};
inline std::atomic<int> last_launch_threads{0};
// Programmatic serialization on SM90+ (true in normal use); _debug_allow_pdl turns it off so a
// benchmark can measure what it gains.
inline std::atomic<bool> pdl_allowed{true};

// Which grid a launch uses. kRule applies the variant's kernels.rope_kv_insert.grid_rule
// (use_warp_per_slot in its config); the other two force one grid and exist for benchmarks and
// tests.
enum class GridChoice { kRule, kWarpPerSlot, kReduced };

struct RopeKvParams {
  const void* q_in;  // [num_tokens, num_heads_q, kHeadDim]; unused when kNumHeadsQPadded == 0
  void* q_out;       // [num_tokens, kNumHeadsQPadded, kHeadDim], same dtype as q_in
  const void* kv;    // [>= num_tokens, kHeadDim]; never written
  uint8_t* k_cache;  // base address of the paged cache, viewed as bytes
  const int64_t* slot_mapping;  // [num_slots]; slot < 0 skips the row
  const int64_t* position_ids;  // [>= num_tokens]
  const float* cos_sin_cache;   // [max_position, kRopeDim]: kRopeDim / 2 cos, then sin
  const float* fp8_scale;       // one float32 per-tensor scale; per-tensor fp8 cache only
  int64_t num_tokens;           // rows processed: Q rows, or kv rows of the KV-only op
  int64_t num_slots;            // kv rows >= num_slots are not written
  int num_heads_q;       // live Q heads; slots [num_heads_q, kNumHeadsQPadded) are zero-filled
  int cache_block_size;  // tokens per cache block
  int64_t cache_block_stride;  // bytes between cache blocks
  int64_t cache_token_stride;  // bytes between tokens of a block (plain rows)
  float eps;                   // Q RMSNorm epsilon
};

// Launches one compiled instantiation (defined in rope_kv_kernel.cuh, instantiated in the
// variant's generated rope_kv_inst_h*.cu units).
template <typename scalar_t, int kNumHeadsQPadded, bool kApplyQNorm, CacheKind kCache>
cudaError_t launch_rope_kv_insert(const RopeKvParams& params, GridChoice grid, cudaStream_t stream);

// Picks the instantiation for the runtime values (rope_kv_dispatch.cu). Returns an empty string
// on success, else a message for the user (an unsupported value, or the CUDA launch error).
std::string dispatch_rope_kv_insert(const RopeKvParams& params, ScalarKind scalar,
                                    int q_head_padded, bool apply_q_norm, CacheKind cache,
                                    GridChoice grid, cudaStream_t stream);

}  // namespace DSV41GEN_ROPE_KV_NAMESPACE::rope_kv
