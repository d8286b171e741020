// Host dispatch of the fused RoPE + KV insert: runtime (q_head_padded, apply_q_norm, dtype, cache
// format) -> one compiled instantiation, walking the compiled sets of the variant's generated
// rope_kv_config.h (kNumHeadsQPadded, kApplyQNorm*, kInputDtypes, kCacheFormats). Torch-free;
// the kernels live in the variant's rope_kv_inst_h*.cu units.
#include <iterator>
#include <string>

// The variant's rope_kv_config.h is pre-included (-include, by its path): its generated
// directory is on no include path (rope_kv_loader.include_flags).
#ifndef DSV41GEN_ROPE_KV_NAMESPACE
  #error "compile with -include <csrc/<variant>>/rope_kv_config.h (rope_kv_loader.include_flags)"
#endif

namespace DSV41GEN_ROPE_KV_NAMESPACE::rope_kv {
namespace {

std::string launch_status(cudaError_t error) {
  if (error == cudaSuccess) return std::string();
  return std::string("fused RoPE + KV insert: CUDA launch failed: ") + cudaGetErrorString(error);
}

// kCacheFormats[I:]; the last one is taken without a test (the bindings selected `cache` from
// kCacheFormats).
template <typename scalar_t, int kHeads, bool kApplyQNorm, size_t I = 0>
std::string launch_for_cache(const RopeKvParams& params, CacheKind cache, GridChoice grid,
                             cudaStream_t stream) {
  constexpr CacheKind kCache = kCacheFormats[I];
  if constexpr (I + 1 < std::size(kCacheFormats)) {
    if (cache != kCache) {
      return launch_for_cache<scalar_t, kHeads, kApplyQNorm, I + 1>(params, cache, grid, stream);
    }
  }
  return launch_status(
      launch_rope_kv_insert<scalar_t, kHeads, kApplyQNorm, kCache>(params, grid, stream));
}

// kInputDtypes[I:]; the last one is taken without a test (the bindings checked kv's dtype).
template <int kHeads, bool kApplyQNorm, size_t I = 0>
std::string launch_for_scalar(const RopeKvParams& params, ScalarKind scalar, CacheKind cache,
                              GridChoice grid, cudaStream_t stream) {
  constexpr ScalarKind kScalar = kInputDtypes[I];
  if constexpr (I + 1 < std::size(kInputDtypes)) {
    if (scalar != kScalar) {
      return launch_for_scalar<kHeads, kApplyQNorm, I + 1>(params, scalar, cache, grid, stream);
    }
  }
  using scalar_t = typename ScalarTypeOf<kScalar>::type;
  return launch_for_cache<scalar_t, kHeads, kApplyQNorm>(params, cache, grid, stream);
}

// The apply_q_norm values compiled for kHeads: the KV-only insert (kHeads == 0) has no Q to
// normalise, so only false; any other value gets the spec's kernels.rope_kv_insert.apply_q_norm.
template <int kHeads>
std::string launch_for_norm(const RopeKvParams& params, ScalarKind scalar, bool apply_q_norm,
                            CacheKind cache, GridChoice grid, cudaStream_t stream) {
  constexpr bool kTrue = kHeads != 0 && kApplyQNormTrue;
  constexpr bool kFalse = kHeads == 0 || kApplyQNormFalse;
  if constexpr (kTrue && kFalse) {
    return apply_q_norm ? launch_for_scalar<kHeads, true>(params, scalar, cache, grid, stream)
                        : launch_for_scalar<kHeads, false>(params, scalar, cache, grid, stream);
  } else {
    if (apply_q_norm != kTrue) {
      const std::string value = apply_q_norm ? "true" : "false";
      if constexpr (kHeads == 0) {
        return "apply_q_norm=" + value +
               ", but the KV-only insert (num_heads_q_padded=0) has no Q to normalise; pass "
               "apply_q_norm=false";
      } else {
        return "apply_q_norm=" + value + " is not compiled for variant " + kVariant +
               " (spec kernels.rope_kv_insert.apply_q_norm: " + kApplyQNormText + ")";
      }
    }
    return launch_for_scalar<kHeads, kTrue>(params, scalar, cache, grid, stream);
  }
}

// kNumHeadsQPadded[I:], the compiled kNumHeadsQPadded values.
template <size_t I = 0>
std::string launch_for_heads(const RopeKvParams& params, ScalarKind scalar, int q_head_padded,
                             bool apply_q_norm, CacheKind cache, GridChoice grid,
                             cudaStream_t stream) {
  if constexpr (I < std::size(kNumHeadsQPadded)) {
    if (q_head_padded == kNumHeadsQPadded[I]) {
      return launch_for_norm<kNumHeadsQPadded[I]>(params, scalar, apply_q_norm, cache, grid,
                                                  stream);
    }
    return launch_for_heads<I + 1>(params, scalar, q_head_padded, apply_q_norm, cache, grid,
                                   stream);
  } else {
    return "unsupported num_heads_q_padded=" + std::to_string(q_head_padded) +
           " (compiled instantiations: " + kNumHeadsQPaddedText + ").";
  }
}

}  // namespace

std::string dispatch_rope_kv_insert(const RopeKvParams& params, ScalarKind scalar,
                                    int q_head_padded, bool apply_q_norm, CacheKind cache,
                                    GridChoice grid, cudaStream_t stream) {
  return launch_for_heads(params, scalar, q_head_padded, apply_q_norm, cache, grid, stream);
}

}  // namespace DSV41GEN_ROPE_KV_NAMESPACE::rope_kv
