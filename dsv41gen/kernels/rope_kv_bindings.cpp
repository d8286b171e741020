// Torch op bindings of the fused RoPE + KV insert, in library torch.ops.<namespace> of the
// variant whose generated rope_kv_config.h is on the include path (DSV41GEN_ROPE_KV_NAMESPACE).
// Every input is checked here, before anything reaches the torch-free dispatch; the checks read
// the variant's geometry, compiled sets and CacheTraits from its config.
#include <array>
#include <atomic>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/library.h>

// The variant's rope_kv_config.h is pre-included (-include, by its path): its generated
// directory is on no include path (rope_kv_loader.include_flags).
#ifndef DSV41GEN_ROPE_KV_NAMESPACE
  #error "compile with -include <csrc/<variant>>/rope_kv_config.h (rope_kv_loader.include_flags)"
#endif

namespace DSV41GEN_ROPE_KV_NAMESPACE::rope_kv {
namespace {

constexpr int64_t kVectorBytes = 16;  // the kernel moves 16-byte vectors

// TORCH_CHECK message arguments. Integers and shapes are turned into text here, with
// std::to_string, so that this library never formats a number through an ostream: built by GCC 13
// on the H200 image, the extension carried its own copy of std::ostream::_M_insert<long>, which
// (the library is loaded RTLD_GLOBAL by torch.ops.load_library and binds to its own definitions)
// looked the num_put facet up with an id the process's libstdc++ never registered, called another
// facet's virtual and crashed with SIGSEGV on every rejected call whose message held a number.
// Strings, devices (libc10's operator<<) and dtypes (their names) are passed through.
std::string dims_text(c10::IntArrayRef dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) text += ", ";
    text += std::to_string(dims[i]);
  }
  return text + "]";
}

template <typename T>
auto message_arg(const T& value) {
  if constexpr (std::is_integral_v<T>) {
    return std::to_string(value);
  } else if constexpr (std::is_same_v<T, c10::IntArrayRef>) {
    return dims_text(value);
  } else if constexpr (std::is_same_v<T, c10::ScalarType>) {
    return std::string(c10::toString(value));
  } else {
    return value;
  }
}

// Grid override for benchmarks and tests (_debug_set_grid); kRule in normal use.
std::atomic<GridChoice> grid_choice{GridChoice::kRule};

constexpr at::ScalarType at_type(ScalarKind scalar) {
  switch (scalar) {
    case ScalarKind::kBFloat16:
      return at::kBFloat16;
    case ScalarKind::kHalf:
      return at::kHalf;
  }
  return at::kBFloat16;  // unreachable: every enumerator returns above
}

constexpr at::ScalarType at_type(CacheDtype dtype) {
  switch (dtype) {
    case CacheDtype::kUint8:
      return at::kByte;
    case CacheDtype::kBFloat16:
      return at::kBFloat16;
    case CacheDtype::kFloat8E4m3fn:
      return at::kFloat8_e4m3fn;
  }
  return at::kByte;  // unreachable: every enumerator returns above
}

// One compiled cache format, from its CacheTraits, for the checks below.
struct Format {
  CacheKind kind;
  at::ScalarType dtype;
  const char* dtype_name;  // the spec's name of k_cache's dtype
  int64_t record_width;    // k_cache.size(2)
  int64_t elem_bytes;
  RecordLayout layout;
  bool per_tensor_scale;
  const char* name;         // the spec's name of the format
  const char* description;  // what one record holds
};

template <CacheKind kCache>
constexpr Format format_of() {
  using Traits = CacheTraits<kCache>;
  return {kCache,
          at_type(Traits::kCacheDtype),
          Traits::kCacheDtypeName,
          Traits::kRecordWidth,
          Traits::kCacheDtype == CacheDtype::kBFloat16 ? 2 : 1,
          Traits::kLayout,
          Traits::kPerTensorScale,
          Traits::kName,
          Traits::kDescription};
}

template <size_t... I>
constexpr std::array<Format, sizeof...(I)> formats_of(std::index_sequence<I...>) {
  return {format_of<kCacheFormats[I]>()...};
}

// kCacheFormats, in the spec's order.
constexpr auto kFormats = formats_of(std::make_index_sequence<std::size(kCacheFormats)>());

// The mxfp8 format's index in kFormats (the one kv_mxfp8 selects), or -1.
constexpr int mxfp8_index() {
  for (size_t i = 0; i < kFormats.size(); ++i) {
    if (kFormats[i].kind == CacheKind::kMxfp8) return static_cast<int>(i);
  }
  return -1;
}
constexpr int kMxfp8Index = mxfp8_index();
constexpr bool kHasMxfp8 = kMxfp8Index >= 0;

bool is_input_dtype(at::ScalarType dtype) {
  for (ScalarKind scalar : kInputDtypes) {
    if (at_type(scalar) == dtype) return true;
  }
  return false;
}

bool is_cache_dtype(at::ScalarType dtype) {
  for (const Format& format : kFormats) {
    if (format.dtype == dtype) return true;
  }
  return false;
}

ScalarKind scalar_kind(const at::Tensor& t) {
  size_t i = 0;
  while (i + 1 < std::size(kInputDtypes) && at_type(kInputDtypes[i]) != t.scalar_type()) ++i;
  return kInputDtypes[i];  // the last one without a test, by the dtype check
}

// Checks shared by both ops (reference §7's list for the KV-only op).
void check_kv_inputs(const at::Tensor& kv, const at::Tensor& k_cache,
                     const at::Tensor& slot_mapping, const at::Tensor& position_ids,
                     const at::Tensor& cos_sin_cache, int64_t cache_block_size, bool kv_mxfp8) {
  TORCH_CHECK(kv.is_cuda(), "kv must be a CUDA tensor, got device ", message_arg(kv.device()));
  TORCH_CHECK(is_input_dtype(kv.scalar_type()), "kv must be ", kInputDtypesText,
              " (spec kernels.rope_kv_insert.input_dtypes), got ", message_arg(kv.scalar_type()));
  TORCH_CHECK(kv.dim() == 2 && kv.size(1) == kHeadDim, "kv must have shape [num_tokens, ",
              message_arg(kHeadDim), "] (head_dim), got ", message_arg(kv.sizes()));
  TORCH_CHECK(kv.is_contiguous(), "kv must be contiguous; call .contiguous() on it first");
  TORCH_CHECK(slot_mapping.device() == kv.device() && slot_mapping.scalar_type() == at::kLong &&
                  slot_mapping.dim() == 1 && slot_mapping.is_contiguous(),
              "slot_mapping must be a contiguous 1-D int64 tensor on ", message_arg(kv.device()),
              ", got ", message_arg(slot_mapping.scalar_type()), " ",
              message_arg(slot_mapping.sizes()), " on ", message_arg(slot_mapping.device()));
  TORCH_CHECK(position_ids.device() == kv.device() && position_ids.scalar_type() == at::kLong &&
                  position_ids.dim() == 1 && position_ids.is_contiguous(),
              "position_ids must be a contiguous 1-D int64 tensor on ", message_arg(kv.device()),
              ", got ", message_arg(position_ids.scalar_type()), " ",
              message_arg(position_ids.sizes()), " on ", message_arg(position_ids.device()));
  TORCH_CHECK(position_ids.size(0) >= kv.size(0), "position_ids must cover every kv row: got ",
              message_arg(position_ids.size(0)), " positions for ", message_arg(kv.size(0)),
              " rows");
  TORCH_CHECK(slot_mapping.size(0) <= kv.size(0), "slot_mapping has ",
              message_arg(slot_mapping.size(0)), " entries but kv only ", message_arg(kv.size(0)),
              " rows; only padded rows may be left out of slot_mapping");
  TORCH_CHECK(cos_sin_cache.device() == kv.device() && cos_sin_cache.scalar_type() == at::kFloat &&
                  cos_sin_cache.dim() == 2 && cos_sin_cache.size(1) == kRopeDim &&
                  cos_sin_cache.is_contiguous(),
              "cos_sin_cache must be a contiguous float32 [max_position, ", message_arg(kRopeDim),
              "] tensor on ", message_arg(kv.device()), " (", message_arg(kRopeDim / 2),
              " cos then ", message_arg(kRopeDim / 2), " sin per position), got ",
              message_arg(cos_sin_cache.scalar_type()), " ", message_arg(cos_sin_cache.sizes()));
  TORCH_CHECK(reinterpret_cast<uintptr_t>(kv.data_ptr()) % kVectorBytes == 0 &&
                  reinterpret_cast<uintptr_t>(cos_sin_cache.data_ptr()) % kVectorBytes == 0,
              "kv and cos_sin_cache must start at 16-byte aligned addresses (the kernel reads "
              "16-byte vectors); pass a .clone() of a sliced tensor");
  TORCH_CHECK(k_cache.device() == kv.device(), "k_cache must be on ", message_arg(kv.device()),
              ", got ", message_arg(k_cache.device()));
  TORCH_CHECK(
      k_cache.dim() == 3,
      "k_cache must be a 3-D paged cache [num_blocks, block_size, record_width], got sizes ",
      message_arg(k_cache.sizes()));
  TORCH_CHECK(k_cache.stride(2) == 1,
              "k_cache's last dimension must be contiguous (stride(2) == 1), got strides ",
              message_arg(k_cache.strides()));
  TORCH_CHECK(k_cache.size(1) == cache_block_size, "k_cache.size(1) is ",
              message_arg(k_cache.size(1)), " but cache_block_size is ",
              message_arg(cache_block_size), "; pass the block size the cache was allocated with");
  TORCH_CHECK(is_cache_dtype(k_cache.scalar_type()), "k_cache dtype must be ", kCacheDtypesText,
              " (cache formats of ", kVariant, ": ", kCacheFormatsText, "), got ",
              message_arg(k_cache.scalar_type()));
  if (kHasMxfp8) {
    const Format& mxfp8 = kFormats[kMxfp8Index];
    TORCH_CHECK(!kv_mxfp8 || k_cache.scalar_type() == mxfp8.dtype, "kv_mxfp8=True needs a ",
                mxfp8.dtype_name, " ", mxfp8.name, " cache, got k_cache dtype ",
                message_arg(k_cache.scalar_type()));
  } else {
    TORCH_CHECK(!kv_mxfp8, "kv_mxfp8=True, but variant ", kVariant,
                " has no mxfp8 cache format (spec kernels.rope_kv_insert.cache_formats: ",
                kCacheFormatsText, "); pass kv_mxfp8=False");
  }
}

// Whether k_cache's dtype (and, among byte caches of a variant with an mxfp8 format, kv_mxfp8)
// picks this format.
bool selects(const Format& format, const at::Tensor& k_cache, bool kv_mxfp8) {
  if (k_cache.scalar_type() != format.dtype) return false;
  if (format.dtype != at::kByte || !kHasMxfp8) return true;
  return kv_mxfp8 == (format.kind == CacheKind::kMxfp8);
}

// The cache format, from k_cache's dtype and kv_mxfp8, with that format's checks.
CacheKind select_cache(const at::Tensor& kv, const at::Tensor& k_cache,
                       const std::optional<at::Tensor>& fp8_scale, bool kv_mxfp8) {
  size_t i = 0;
  // the last format without a test: the dtype checks above leave it as the only one
  while (i + 1 < kFormats.size() && !selects(kFormats[i], k_cache, kv_mxfp8)) ++i;
  const Format& format = kFormats[i];
  const int64_t width = format.record_width;
  std::string hint;  // a byte cache of the other record width: the kv_mxfp8 flag it needs
  for (const Format& other : kFormats) {
    if (&other != &format && other.dtype == format.dtype && format.dtype == at::kByte &&
        kHasMxfp8) {
      hint = "; for a " + std::to_string(other.record_width) + "-byte " + other.name +
             " cache pass kv_mxfp8=" + (other.kind == CacheKind::kMxfp8 ? "True" : "False");
    }
  }
  TORCH_CHECK(k_cache.size(2) == width, "k_cache.size(2) must be ", message_arg(width), " for the ",
              format.name, " cache format (", format.description, "), got ",
              message_arg(k_cache.size(2)), hint);
  const bool pointer_aligned = reinterpret_cast<uintptr_t>(k_cache.data_ptr()) % kVectorBytes == 0;
  if (format.layout != RecordLayout::kPlainRow) {
    const char* layout = format.layout == RecordLayout::kTokenDataThenScales
                             ? "token data then scales"
                             : "token records";
    TORCH_CHECK(k_cache.stride(1) == width, "a ", format.name,
                " cache block must be one contiguous byte range (", layout,
                "), so k_cache.stride(1) must be ", message_arg(width), ", got strides ",
                message_arg(k_cache.strides()));
    TORCH_CHECK(k_cache.stride(0) % kVectorBytes == 0 && pointer_aligned,
                "k_cache.stride(0) (bytes per block) and k_cache's address must be multiples of "
                "16 bytes (the kernel writes 16-byte vectors), got strides ",
                message_arg(k_cache.strides()));
  } else {
    TORCH_CHECK((k_cache.stride(0) * format.elem_bytes) % kVectorBytes == 0 &&
                    (k_cache.stride(1) * format.elem_bytes) % kVectorBytes == 0 && pointer_aligned,
                "k_cache's block and token strides in bytes and k_cache's address must be "
                "multiples of 16 bytes (the kernel writes 16-byte vectors), got strides ",
                message_arg(k_cache.strides()));
  }
  if (format.per_tensor_scale) {
    TORCH_CHECK(fp8_scale.has_value() && fp8_scale->device() == kv.device() &&
                    fp8_scale->scalar_type() == at::kFloat && fp8_scale->numel() == 1,
                "a ", format.dtype_name, " (", format.name,
                ") cache needs fp8_scale: a float32 tensor on ", message_arg(kv.device()),
                " holding exactly one per-tensor scale");
  } else {
    TORCH_CHECK(!fp8_scale.has_value(),
                "fp8_scale is used only by a per-tensor-scaled fp8 cache; pass None for the ",
                format.name, " cache");
  }
  return format.kind;
}

RopeKvParams kv_params(const at::Tensor& kv, at::Tensor& k_cache, const at::Tensor& slot_mapping,
                       const at::Tensor& position_ids, const at::Tensor& cos_sin_cache,
                       int64_t cache_block_size, const std::optional<at::Tensor>& fp8_scale) {
  RopeKvParams params{};
  params.kv = kv.data_ptr();
  params.k_cache = static_cast<uint8_t*>(k_cache.data_ptr());
  params.slot_mapping = slot_mapping.data_ptr<int64_t>();
  params.position_ids = position_ids.data_ptr<int64_t>();
  params.cos_sin_cache = cos_sin_cache.data_ptr<float>();
  params.fp8_scale = fp8_scale.has_value() ? fp8_scale->data_ptr<float>() : nullptr;
  params.num_slots = slot_mapping.size(0);
  params.cache_block_size = static_cast<int>(cache_block_size);
  params.cache_block_stride = k_cache.stride(0) * k_cache.element_size();
  params.cache_token_stride = k_cache.stride(1) * k_cache.element_size();
  return params;
}

void run(const RopeKvParams& params, ScalarKind scalar, int q_head_padded, bool apply_q_norm,
         CacheKind cache) {
  const std::string error =
      dispatch_rope_kv_insert(params, scalar, q_head_padded, apply_q_norm, cache,
                              grid_choice.load(), at::cuda::getCurrentCUDAStream());
  TORCH_CHECK(error.empty(), error);
}

}  // namespace

// fused_deepseek_v4_kv_rope_insert(Tensor kv, Tensor! k_cache, Tensor slot_mapping, Tensor
// position_ids, Tensor cos_sin_cache, int cache_block_size, Tensor? fp8_scale=None, bool
// kv_mxfp8=False) -> ()
void kv_rope_insert(const at::Tensor& kv, at::Tensor& k_cache, const at::Tensor& slot_mapping,
                    const at::Tensor& position_ids, const at::Tensor& cos_sin_cache,
                    int64_t cache_block_size, const std::optional<at::Tensor>& fp8_scale,
                    bool kv_mxfp8) {
  check_kv_inputs(kv, k_cache, slot_mapping, position_ids, cos_sin_cache, cache_block_size,
                  kv_mxfp8);
  const CacheKind cache = select_cache(kv, k_cache, fp8_scale, kv_mxfp8);
  const c10::cuda::CUDAGuard device_guard(kv.device());
  RopeKvParams params = kv_params(kv, k_cache, slot_mapping, position_ids, cos_sin_cache,
                                  cache_block_size, fp8_scale);
  params.num_tokens = slot_mapping.size(0);  // rows past slot_mapping are never written
  run(params, scalar_kind(kv), 0, false, cache);
}

// fused_deepseek_v4_qnorm_rope_kv_insert(Tensor q_in, Tensor! q_out, Tensor kv, Tensor! k_cache,
// Tensor slot_mapping, Tensor position_ids, Tensor cos_sin_cache, int q_head_padded, float eps,
// bool apply_q_norm, int cache_block_size, Tensor? fp8_scale=None, bool kv_mxfp8=False) -> ()
void qnorm_rope_kv_insert(const at::Tensor& q_in, at::Tensor& q_out, const at::Tensor& kv,
                          at::Tensor& k_cache, const at::Tensor& slot_mapping,
                          const at::Tensor& position_ids, const at::Tensor& cos_sin_cache,
                          int64_t q_head_padded, double eps, bool apply_q_norm,
                          int64_t cache_block_size, const std::optional<at::Tensor>& fp8_scale,
                          bool kv_mxfp8) {
  check_kv_inputs(kv, k_cache, slot_mapping, position_ids, cos_sin_cache, cache_block_size,
                  kv_mxfp8);
  TORCH_CHECK(q_in.device() == kv.device(), "q_in must be on ", message_arg(kv.device()), ", got ",
              message_arg(q_in.device()));
  TORCH_CHECK(q_in.scalar_type() == kv.scalar_type() && q_out.scalar_type() == kv.scalar_type(),
              "q_in, q_out and kv must share one dtype, got ", message_arg(q_in.scalar_type()),
              ", ", message_arg(q_out.scalar_type()), ", ", message_arg(kv.scalar_type()));
  TORCH_CHECK(q_in.dim() == 3 && q_in.size(0) == kv.size(0) && q_in.size(2) == kHeadDim &&
                  q_in.is_contiguous(),
              "q_in must be a contiguous [num_tokens, num_heads_q, ", message_arg(kHeadDim),
              "] tensor with kv's ", message_arg(kv.size(0)), " rows, got ",
              message_arg(q_in.sizes()));
  TORCH_CHECK(
      q_in.size(1) >= 1 && q_in.size(1) <= q_head_padded, "q_in has ", message_arg(q_in.size(1)),
      " heads; it needs at least one and at most q_head_padded=", message_arg(q_head_padded));
  TORCH_CHECK(q_out.device() == kv.device() && q_out.dim() == 3 && q_out.size(0) == q_in.size(0) &&
                  q_out.size(1) == q_head_padded && q_out.size(2) == kHeadDim &&
                  q_out.is_contiguous(),
              "q_out must be a contiguous [num_tokens, q_head_padded, ", message_arg(kHeadDim),
              "] tensor on ", message_arg(kv.device()), ", got ", message_arg(q_out.sizes()),
              " with q_head_padded=", message_arg(q_head_padded));
  TORCH_CHECK(reinterpret_cast<uintptr_t>(q_in.data_ptr()) % kVectorBytes == 0 &&
                  reinterpret_cast<uintptr_t>(q_out.data_ptr()) % kVectorBytes == 0,
              "q_in and q_out must start at 16-byte aligned addresses (the kernel moves 16-byte "
              "vectors); pass a .clone() of a sliced tensor");
  const CacheKind cache = select_cache(kv, k_cache, fp8_scale, kv_mxfp8);
  const c10::cuda::CUDAGuard device_guard(kv.device());
  RopeKvParams params = kv_params(kv, k_cache, slot_mapping, position_ids, cos_sin_cache,
                                  cache_block_size, fp8_scale);
  params.q_in = q_in.data_ptr();
  params.q_out = q_out.data_ptr();
  params.num_tokens = q_in.size(0);
  params.num_heads_q = static_cast<int>(q_in.size(1));
  params.eps = static_cast<float>(eps);
  run(params, scalar_kind(kv), static_cast<int>(q_head_padded), apply_q_norm, cache);
}

// The ops' fake (Meta) kernels: FakeTensor tracing, torch.compile and torch.library.opcheck run
// these instead of the CUDA kernels. The ops return nothing and write only the tensors their
// schemas mark (Tensor!), so a fake call has nothing to compute or allocate; the inputs are
// checked when the CUDA kernel is called.
void kv_rope_insert_meta(const at::Tensor&, at::Tensor&, const at::Tensor&, const at::Tensor&,
                         const at::Tensor&, int64_t, const std::optional<at::Tensor>&, bool) {}

void qnorm_rope_kv_insert_meta(const at::Tensor&, at::Tensor&, const at::Tensor&, at::Tensor&,
                               const at::Tensor&, const at::Tensor&, const at::Tensor&, int64_t,
                               double, bool, int64_t, const std::optional<at::Tensor>&, bool) {}

// _debug_set_grid(str grid) -> ()
void debug_set_grid(std::string grid) {
  if (grid == "rule") {
    grid_choice.store(GridChoice::kRule);
    return;
  }
  if (grid == "warp_per_slot") {
    grid_choice.store(GridChoice::kWarpPerSlot);
    return;
  }
  if (grid == "reduced") {
    grid_choice.store(GridChoice::kReduced);
    return;
  }
  TORCH_CHECK(false, "_debug_set_grid: unknown grid '", message_arg(grid),
              "'; use 'rule', 'warp_per_slot' or 'reduced'");
}

// _debug_allow_pdl(bool allow) -> ()
void debug_allow_pdl(bool allow) { pdl_allowed.store(allow); }

// _debug_last_launch() -> int[]
std::vector<int64_t> debug_last_launch() {
  return {last_launch_serialization.load() ? 1 : 0, last_launch_blocks.load(),
          last_launch_threads.load()};
}

}  // namespace DSV41GEN_ROPE_KV_NAMESPACE::rope_kv

// TORCH_LIBRARY stringifies its namespace argument: these expand the macro first.
#define ROPE_KV_LIBRARY(ns, m) TORCH_LIBRARY(ns, m)
#define ROPE_KV_LIBRARY_IMPL(ns, key, m) TORCH_LIBRARY_IMPL(ns, key, m)

ROPE_KV_LIBRARY(DSV41GEN_ROPE_KV_NAMESPACE, m) {
  namespace ops = DSV41GEN_ROPE_KV_NAMESPACE::rope_kv;
  // reference §7, verbatim
  m.def(
      "fused_deepseek_v4_kv_rope_insert(Tensor kv, Tensor! k_cache, Tensor slot_mapping, Tensor "
      "position_ids, Tensor cos_sin_cache, int cache_block_size, Tensor? fp8_scale=None, bool "
      "kv_mxfp8=False) -> ()");
  // the KV-only op plus what seed 002 says it dropped (q_in, q_head_padded, eps, apply_q_norm)
  m.def(
      "fused_deepseek_v4_qnorm_rope_kv_insert(Tensor q_in, Tensor! q_out, Tensor kv, Tensor! "
      "k_cache, Tensor slot_mapping, Tensor position_ids, Tensor cos_sin_cache, int q_head_padded, "
      "float eps, bool apply_q_norm, int cache_block_size, Tensor? fp8_scale=None, bool "
      "kv_mxfp8=False) -> ()");
  m.def("_debug_set_grid(str grid) -> ()", &ops::debug_set_grid);
  // [programmatic stream serialization set (0/1), grid blocks, threads per block] of the last
  // launch
  m.def("_debug_last_launch() -> int[]", &ops::debug_last_launch);
  // benchmarks only: allow (true, the default) or forbid programmatic serialization on SM90+
  m.def("_debug_allow_pdl(bool allow) -> ()", &ops::debug_allow_pdl);
}

ROPE_KV_LIBRARY_IMPL(DSV41GEN_ROPE_KV_NAMESPACE, CUDA, m) {
  namespace ops = DSV41GEN_ROPE_KV_NAMESPACE::rope_kv;
  m.impl("fused_deepseek_v4_kv_rope_insert", &ops::kv_rope_insert);
  m.impl("fused_deepseek_v4_qnorm_rope_kv_insert", &ops::qnorm_rope_kv_insert);
}

ROPE_KV_LIBRARY_IMPL(DSV41GEN_ROPE_KV_NAMESPACE, Meta, m) {
  namespace ops = DSV41GEN_ROPE_KV_NAMESPACE::rope_kv;
  m.impl("fused_deepseek_v4_kv_rope_insert", &ops::kv_rope_insert_meta);
  m.impl("fused_deepseek_v4_qnorm_rope_kv_insert", &ops::qnorm_rope_kv_insert_meta);
}
