// The fused RoPE + KV-insert kernels of one variant: its generated rope_kv_config.h (what its
// spec decides), then the family's kernels and launcher (rope_kv_core.cuh), expanded in the
// variant's namespace. Included by the variant's generated rope_kv_inst_h*.cu units, which
// instantiate the launcher with ROPE_KV_INSTANTIATE. Torch-free.
#pragma once

#include <cstdint>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

// The variant's rope_kv_config.h is pre-included (-include, by its path): its generated
// directory is on no include path (rope_kv_loader.include_flags).
#ifndef DSV41GEN_ROPE_KV_NAMESPACE
  #error "compile with -include <csrc/<variant>>/rope_kv_config.h (rope_kv_loader.include_flags)"
#endif

namespace DSV41GEN_ROPE_KV_NAMESPACE::rope_kv {

// Packed-pair conversions of each input dtype (ScalarKind); round to nearest even.
template <typename scalar_t>
struct ScalarOps;

template <>
struct ScalarOps<__nv_bfloat16> {
  static __device__ __forceinline__ float2 to_float2(uint32_t bits) {
    return __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&bits));
  }
  static __device__ __forceinline__ uint32_t from_float2(float a, float b) {
    const __nv_bfloat162 packed = __floats2bfloat162_rn(a, b);
    return *reinterpret_cast<const uint32_t*>(&packed);
  }
};

template <>
struct ScalarOps<__half> {
  static __device__ __forceinline__ float2 to_float2(uint32_t bits) {
    return __half22float2(*reinterpret_cast<const __half2*>(&bits));
  }
  static __device__ __forceinline__ uint32_t from_float2(float a, float b) {
    const __half2 packed = __floats2half2_rn(a, b);
    return *reinterpret_cast<const uint32_t*>(&packed);
  }
};

#include <rope_kv_core.cuh>

}  // namespace DSV41GEN_ROPE_KV_NAMESPACE::rope_kv

// One explicit instantiation of the launcher (and so of its kernels), inside the variant's
// namespace in a generated rope_kv_inst_h*.cu unit: (ScalarKind, kNumHeadsQPadded, kApplyQNorm,
// CacheKind) enumerators and values.
#define ROPE_KV_INSTANTIATE(scalar, heads, norm, cache)                                         \
  template cudaError_t                                                                          \
  launch_rope_kv_insert<ScalarTypeOf<ScalarKind::scalar>::type, heads, norm, CacheKind::cache>( \
      const RopeKvParams&, GridChoice, cudaStream_t)
