// The MXFP8 launchers' native launch path (dsv41gen/kernels/mxfp8.py, issue 29).
//
// Triton's own launcher (CompiledKernel.run) costs about 6.4 us a call on the H200 machine: it
// goes through Python for the scratch buffers and through a generic C launcher that re-reads
// the signature per call. Everything a launch needs is fixed once the launch class and the
// pointers' alignment are known: the CUfunction Triton loaded, the grid, the block, the dynamic
// shared memory and every non-pointer argument. A Launch holds those and makes one
// cuLaunchKernel per call, with the three pointers of the call and, on the allocating path,
// the outputs allocated here (at::empty, no Python argument parsing).
//
// The Python side builds a Launch only for kernels that need none of what this path leaves out
// (no global or profile scratch, one CTA per cluster, no PDL or cooperative launch, no launch
// hooks installed); everything else stays on Triton's launcher.
#include <c10/cuda/CUDAStream.h>
#include <cuda.h>
#include <dlfcn.h>
#include <torch/extension.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

constexpr int kMaxParams = 24;
constexpr int kMaxPointers = 3;

// One kernel parameter: a call's pointer (index into the call's pointers) or a constant of
// 4 or 8 bytes.
struct Param {
  int pointer;  // -1 for a constant
  int width;    // bytes: 4 or 8
  int64_t value;
};

// The two driver entry points, read from the driver library the process has loaded (torch's
// CUDA runtime loads it): the extension links no CUDA library of its own.
struct Driver {
  using LaunchKernel = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                                    unsigned, unsigned, CUstream, void**, void**);
  using GetErrorString = CUresult (*)(CUresult, const char**);
  LaunchKernel launch_kernel = nullptr;
  GetErrorString get_error_string = nullptr;
};

const Driver& driver() {
  static const Driver loaded = [] {
    void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (library == nullptr) library = dlopen("libcuda.so.1", RTLD_NOW);
    if (library == nullptr) throw std::runtime_error("libcuda.so.1 cannot be loaded");
    Driver d;
    d.launch_kernel = reinterpret_cast<Driver::LaunchKernel>(dlsym(library, "cuLaunchKernel"));
    d.get_error_string =
        reinterpret_cast<Driver::GetErrorString>(dlsym(library, "cuGetErrorString"));
    if (d.launch_kernel == nullptr || d.get_error_string == nullptr)
      throw std::runtime_error("libcuda.so.1 has no cuLaunchKernel / cuGetErrorString");
    return d;
  }();
  return loaded;
}

class Launch {
 public:
  Launch(int64_t function, std::vector<int64_t> grid, int64_t num_warps, int64_t shared,
         std::vector<std::string> kinds, std::vector<int64_t> values, int64_t device,
         int64_t num_inputs, std::vector<std::vector<int64_t>> out_shapes,
         std::vector<at::ScalarType> out_dtypes)
      : function_(reinterpret_cast<CUfunction>(function)),
        block_(static_cast<unsigned>(num_warps * 32)),
        shared_(static_cast<unsigned>(shared)),
        device_(static_cast<c10::DeviceIndex>(device)),
        num_inputs_(static_cast<int>(num_inputs)),
        out_shapes_(std::move(out_shapes)),
        out_dtypes_(std::move(out_dtypes)) {
    driver();  // fails here, at construction, where the driver is missing
    if (grid.size() != 3) throw std::invalid_argument("grid must have 3 dimensions");
    for (int i = 0; i < 3; ++i) grid_[i] = static_cast<unsigned>(grid[i]);
    if (kinds.size() != values.size() || kinds.size() > kMaxParams)
      throw std::invalid_argument("kinds and values must match, at most 24 parameters");
    if (num_inputs_ + static_cast<int>(out_shapes_.size()) > kMaxPointers ||
        out_shapes_.size() != out_dtypes_.size())
      throw std::invalid_argument("at most 3 pointers; one dtype per output shape");
    for (size_t i = 0; i < kinds.size(); ++i) {
      const std::string& kind = kinds[i];
      if (kind == "ptr") {
        if (values[i] < 0 || values[i] >= kMaxPointers)
          throw std::invalid_argument("pointer parameter index out of range");
        params_.push_back({static_cast<int>(values[i]), 8, 0});
      } else if (kind == "i32") {
        params_.push_back({-1, 4, values[i]});
      } else if (kind == "i64") {
        params_.push_back({-1, 8, values[i]});
      } else {
        throw std::invalid_argument("unsupported parameter kind " + kind);
      }
    }
  }

  // The launch on caller-provided memory: pointers in the kernel's pointer order.
  void launch(int64_t a, int64_t b, int64_t c) const { go({a, b, c}); }

  // The allocating launch: the inputs' pointers, then the outputs allocated on the launch's
  // device; returns the one output, or a tuple of them.
  py::object launch_new(int64_t a, int64_t b) const {
    std::array<int64_t, kMaxPointers> pointers{a, b, 0};
    std::vector<at::Tensor> outs;
    outs.reserve(out_shapes_.size());
    const auto options = at::TensorOptions().device(at::kCUDA, device_);
    for (size_t i = 0; i < out_shapes_.size(); ++i) {
      outs.push_back(at::empty(out_shapes_[i], options.dtype(out_dtypes_[i])));
      pointers[num_inputs_ + i] = reinterpret_cast<int64_t>(outs.back().data_ptr());
    }
    go(pointers);
    if (outs.size() == 1) return py::cast(outs[0]);
    py::tuple result(outs.size());
    for (size_t i = 0; i < outs.size(); ++i) result[i] = py::cast(outs[i]);
    return result;
  }

 private:
  void go(const std::array<int64_t, kMaxPointers>& pointers) const {
    std::array<int64_t, kMaxParams> storage;
    std::array<void*, kMaxParams> args;
    for (size_t i = 0; i < params_.size(); ++i) {
      const Param& p = params_[i];
      const int64_t value = p.pointer < 0 ? p.value : pointers[p.pointer];
      if (p.width == 4) {
        const int32_t narrow = static_cast<int32_t>(value);
        std::memcpy(&storage[i], &narrow, sizeof narrow);
      } else {
        storage[i] = value;
      }
      args[i] = &storage[i];
    }
    const CUstream stream = c10::cuda::getCurrentCUDAStream(device_).stream();
    const Driver& cuda = driver();
    const CUresult status = cuda.launch_kernel(function_, grid_[0], grid_[1], grid_[2], block_, 1,
                                               1, shared_, stream, args.data(), nullptr);
    if (status != CUDA_SUCCESS) {
      const char* text = nullptr;
      cuda.get_error_string(status, &text);
      throw std::runtime_error(std::string("cuLaunchKernel failed: ") +
                               (text ? text : "unknown CUDA error"));
    }
  }

  CUfunction function_;
  std::array<unsigned, 3> grid_{};
  unsigned block_;
  unsigned shared_;
  c10::DeviceIndex device_;
  int num_inputs_;
  std::vector<Param> params_;
  std::vector<std::vector<int64_t>> out_shapes_;
  std::vector<at::ScalarType> out_dtypes_;
};

}  // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  py::class_<Launch>(m, "Launch")
      .def(py::init<int64_t, std::vector<int64_t>, int64_t, int64_t, std::vector<std::string>,
                    std::vector<int64_t>, int64_t, int64_t, std::vector<std::vector<int64_t>>,
                    std::vector<at::ScalarType>>())
      .def("launch", &Launch::launch)
      .def("launch_new", &Launch::launch_new);
}
