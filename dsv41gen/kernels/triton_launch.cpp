// The MXFP8 launchers' native launch path (dsv41gen/kernels/mxfp8.py, issue 29).
//
// Triton's own launcher (CompiledKernel.run) costs about 6.4 us a call on the H200 machine: it
// goes through Python for the scratch buffers and through a generic C launcher that re-reads
// the signature per call. Everything a launch needs is fixed once the launch class and the
// pointers' alignment are known: the CUfunction Triton loaded, the grid, the block, the dynamic
// shared memory and every non-pointer argument. A Launch holds those and makes one
// cuLaunchKernel per call, with the three pointers of the call and, on the allocating path,
// the outputs allocated here (at::detail::empty_cuda, no Python argument parsing).
//
// The Python side builds a Launch only for kernels that need none of what this path leaves out
// (no global or profile scratch, one CTA per cluster, no PDL or cooperative launch, no launch
// hooks installed); everything else stays on Triton's launcher.
//
// A Launchers holds one format's launch classes (quantize and dequantize), keyed as the Python
// launchers key them, so that a call of a known class is one C++ entry: from the plain launchers
// (Launchers.quantize / .dequantize) and from the torch custom ops (CUDA kernels registered with
// the dispatcher, so torch.ops does not call back into Python). Whatever the table does not know
// -- a new class, a launch override, a profiler hook, a wrong `out` -- is a miss (None, or a
// call of the Python launcher from the op), and the Python launcher does what it always did:
// every check and every error message stays there, in one place.
#include <ATen/cuda/EmptyTensor.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda.h>
#include <dlfcn.h>
#include <torch/csrc/Dtype.h>
#include <torch/csrc/autograd/python_variable.h>
#include <torch/extension.h>
#include <torch/library.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
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
  py::object launch_new(int64_t a, int64_t b) const { return to_python(allocate_and_go(a, b)); }

  // The outputs allocated here (torch's caching allocator: 16-byte aligned and, inside a CUDA
  // graph capture, from the graph's pool), then the launch.
  std::vector<at::Tensor> allocate_and_go(int64_t a, int64_t b) const {
    std::array<int64_t, kMaxPointers> pointers{a, b, 0};
    std::vector<at::Tensor> outs;
    outs.reserve(out_shapes_.size());
    const c10::Device device(c10::kCUDA, device_);
    for (size_t i = 0; i < out_shapes_.size(); ++i) {
      // at::detail::empty_cuda: the allocation without the dispatcher's round trip
      outs.emplace_back(at::detail::empty_cuda(out_shapes_[i], out_dtypes_[i], device, {}));
      pointers[num_inputs_ + i] = reinterpret_cast<int64_t>(outs.back().data_ptr());
    }
    go(pointers);
    return outs;
  }

  // Whether `outs` are what this launch writes: contiguous tensors of its output shapes and
  // dtypes on its device (their addresses go to the kernel unchecked).
  bool fits(const std::vector<const at::Tensor*>& outs) const {
    if (outs.size() != out_shapes_.size()) return false;
    for (size_t i = 0; i < outs.size(); ++i) {
      const at::Tensor& t = *outs[i];
      if (!t.is_cuda() || t.get_device() != device_ || t.scalar_type() != out_dtypes_[i] ||
          t.sizes() != c10::IntArrayRef(out_shapes_[i]) || !t.is_contiguous())
        return false;
    }
    return true;
  }

  static py::object to_python(const std::vector<at::Tensor>& outs) {
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
    // An empty grid launches nothing (Triton's launcher skips it too; the driver would refuse).
    if (grid_[0] == 0 || grid_[1] == 0 || grid_[2] == 0) return;
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

using LaunchPtr = std::shared_ptr<const Launch>;

// A launch class key, as bytes: what the Python launchers key a class by (shapes, strides,
// dtypes, devices, layout, out_dtype) and what their C++ launches are keyed by (each pointer's
// 16-byte alignment). The current device is not in it: a call is taken only when it is the
// tensors' device, as the Python launchers require.
class Key {
 public:
  explicit Key(char entry) {
    bytes_.reserve(160);
    bytes_.push_back(entry);
  }

  void put(int64_t v) { bytes_.append(reinterpret_cast<const char*>(&v), sizeof v); }

  void put(const char* text, size_t size) {
    put(static_cast<int64_t>(size));
    bytes_.append(text, size);
  }

  // A tensor's class; false where the table never takes it (not a strided CUDA tensor with
  // storage on the current device).
  bool put(const at::Tensor& t, c10::DeviceIndex current) {
    if (!t.defined() || !t.is_cuda() || t.layout() != at::kStrided || !t.has_storage() ||
        t.get_device() != current)
      return false;
    put(t.dim());
    for (const int64_t size : t.sizes()) put(size);
    for (const int64_t stride : t.strides()) put(stride);
    put(static_cast<int64_t>(t.scalar_type()));
    put(t.get_device());
    put(aligned(t));
    return true;
  }

  static int64_t aligned(const at::Tensor& t) {
    return reinterpret_cast<uintptr_t>(t.data_ptr()) % 16 == 0;
  }

  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

// A Python str's UTF-8 bytes, or false where `text` is not a str.
bool utf8(PyObject* text, const char** data, Py_ssize_t* size) {
  if (!PyUnicode_Check(text)) return false;
  *data = PyUnicode_AsUTF8AndSize(text, size);
  if (*data == nullptr) {
    PyErr_Clear();
    return false;
  }
  return true;
}

// A tensor argument of a plain launcher's call, or null where it is not a torch.Tensor (or
// Parameter) itself: subclasses keep Python's path, which honours their overrides.
const at::Tensor* tensor_of(PyObject* object) {
  return THPVariable_CheckExact(object) ? &THPVariable_Unpack(object) : nullptr;
}

class Launchers : public std::enable_shared_from_this<Launchers> {
 public:
  // runtime: triton's knobs.runtime, whose launch hooks send a call to the Python launcher.
  explicit Launchers(py::object runtime) : runtime_(runtime.release().ptr()) {
    // Kept for the process, like the ops these launch for (no decref at interpreter exit).
    enter_ = PyUnicode_InternFromString("launch_enter_hook");
    exit_ = PyUnicode_InternFromString("launch_exit_hook");
    calls_ = PyUnicode_InternFromString("calls");
  }

  // --- the plain launchers (GIL held) ---------------------------------------------------------

  // quantize(x, layout, out) of a known class: (xq, scales), or None on a miss.
  py::object quantize(py::handle x_object, py::handle layout, py::handle out) const {
    const at::Tensor* x = tensor_of(x_object.ptr());
    const char* text;
    Py_ssize_t size;
    if (x == nullptr || !utf8(layout.ptr(), &text, &size)) return py::none();
    std::vector<const at::Tensor*> outs;
    if (!outs_of(out, 2, &outs)) return py::none();
    const c10::DeviceIndex current = c10::cuda::current_device();
    Key key('q');
    key.put(text, size);
    if (!key.put(*x, current)) return py::none();
    put_alignment(key, outs);
    const LaunchPtr launch = find(key);
    if (launch == nullptr || hooked()) return py::none();
    const int64_t pa = reinterpret_cast<int64_t>(x->data_ptr());
    if (outs.empty()) return Launch::to_python(launch->allocate_and_go(pa, 0));
    if (!launch->fits(outs)) return py::none();
    launch->launch(pa, pointer(*outs[0]), pointer(*outs[1]));
    return py::reinterpret_borrow<py::object>(out);
  }

  // dequantize(xq, scales, layout, out_dtype, out) of a known class: the output, or None.
  py::object dequantize(py::handle xq_object, py::handle scales_object, py::handle layout,
                        py::handle out_dtype, py::handle out) const {
    const at::Tensor* xq = tensor_of(xq_object.ptr());
    const at::Tensor* scales = tensor_of(scales_object.ptr());
    const char* text;
    Py_ssize_t size;
    if (xq == nullptr || scales == nullptr || !utf8(layout.ptr(), &text, &size) ||
        !THPDtype_Check(out_dtype.ptr()))
      return py::none();
    std::vector<const at::Tensor*> outs;
    if (!out.is_none()) {
      const at::Tensor* t = tensor_of(out.ptr());
      if (t == nullptr) return py::none();
      outs.push_back(t);
    }
    const c10::DeviceIndex current = c10::cuda::current_device();
    Key key('d');
    key.put(text, size);
    key.put(static_cast<int64_t>(reinterpret_cast<THPDtype*>(out_dtype.ptr())->scalar_type));
    if (!key.put(*xq, current) || !key.put(*scales, current)) return py::none();
    put_alignment(key, outs);
    const LaunchPtr launch = find(key);
    if (launch == nullptr || hooked()) return py::none();
    const int64_t pa = pointer(*xq), pb = pointer(*scales);
    if (outs.empty()) return Launch::to_python(launch->allocate_and_go(pa, pb));
    if (!launch->fits(outs)) return py::none();
    launch->launch(pa, pb, pointer(*outs[0]));
    return py::reinterpret_borrow<py::object>(out);
  }

  // What the Python launchers add once a class has a C++ launch: the call that made it, with
  // the outputs it wrote (their alignment is part of the key).
  void add_quantize(std::shared_ptr<Launch> launch, const at::Tensor& x, const std::string& layout,
                    const at::Tensor& xq, const at::Tensor& scales) {
    Key key('q');
    key.put(layout.data(), layout.size());
    if (!key.put(x, x.get_device())) return;
    key.put(Key::aligned(xq) + Key::aligned(scales) * 2);
    store(key, std::move(launch));
  }

  void add_dequantize(std::shared_ptr<Launch> launch, const at::Tensor& xq,
                      const at::Tensor& scales, const std::string& layout, at::ScalarType out_dtype,
                      const at::Tensor& out) {
    Key key('d');
    key.put(layout.data(), layout.size());
    key.put(static_cast<int64_t>(out_dtype));
    if (!key.put(xq, xq.get_device()) || !key.put(scales, xq.get_device())) return;
    key.put(Key::aligned(out));
    store(key, std::move(launch));
  }

  size_t size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return classes_.size();
  }

  // --- the custom ops (called by the dispatcher, GIL not held) --------------------------------

  // Registers the CUDA kernels of the ops `ns::quantize_name` / `ns::dequantize_name` (defined
  // in Python): a known class launches from here, anything else calls the Python launcher
  // (`python_quantize(x, layout)`, `python_dequantize(xq, scales, layout, out_dtype)`).
  void register_ops(const std::string& ns, const std::string& quantize_name,
                    const std::string& dequantize_name, py::object python_quantize,
                    py::object python_dequantize) {
    python_quantize_ = python_quantize.release().ptr();
    python_dequantize_ = python_dequantize.release().ptr();
    library_ = std::make_unique<torch::Library>(torch::Library::FRAGMENT, ns, std::nullopt,
                                                __FILE__, __LINE__);
    auto self = shared_from_this();  // the kernels keep the table alive (ops live for good)
    library_->impl(
        quantize_name.c_str(),
        torch::dispatch(c10::DispatchKey::CUDA, torch::CppFunction::makeFromBoxedFunctor(
                                                    std::make_unique<QuantizeKernel>(self))));
    library_->impl(
        dequantize_name.c_str(),
        torch::dispatch(c10::DispatchKey::CUDA, torch::CppFunction::makeFromBoxedFunctor(
                                                    std::make_unique<DequantizeKernel>(self))));
  }

 private:
  struct QuantizeKernel : c10::OperatorKernel {
    explicit QuantizeKernel(std::shared_ptr<Launchers> owner) : owner(std::move(owner)) {}
    void operator()(const c10::OperatorHandle&, c10::DispatchKeySet, torch::jit::Stack* stack) {
      const at::Tensor x = (*stack)[stack->size() - 2].toTensor();
      const std::string layout((*stack)[stack->size() - 1].toStringRef());
      torch::jit::drop(*stack, 2);
      for (at::Tensor& out : owner->quantize_op(x, layout)) stack->emplace_back(std::move(out));
    }
    std::shared_ptr<Launchers> owner;
  };

  struct DequantizeKernel : c10::OperatorKernel {
    explicit DequantizeKernel(std::shared_ptr<Launchers> owner) : owner(std::move(owner)) {}
    void operator()(const c10::OperatorHandle&, c10::DispatchKeySet, torch::jit::Stack* stack) {
      const size_t n = stack->size();
      const at::Tensor xq = (*stack)[n - 4].toTensor();
      const at::Tensor scales = (*stack)[n - 3].toTensor();
      const std::string layout((*stack)[n - 2].toStringRef());
      const at::ScalarType out_dtype = (*stack)[n - 1].toScalarType();
      torch::jit::drop(*stack, 4);
      stack->emplace_back(owner->dequantize_op(xq, scales, layout, out_dtype));
    }
    std::shared_ptr<Launchers> owner;
  };

  std::vector<at::Tensor> quantize_op(const at::Tensor& x, const std::string& layout) const {
    Key key('q');
    key.put(layout.data(), layout.size());
    LaunchPtr launch;
    if (key.put(x, c10::cuda::current_device())) {
      key.put(3);  // outputs allocated here
      launch = find(key);
    }
    {
      py::gil_scoped_acquire gil;
      if (launch == nullptr || hooked()) {
        const py::object result = py::reinterpret_borrow<py::object>(python_quantize_)(x, layout);
        const py::tuple pair = result.cast<py::tuple>();
        return {pair[0].cast<at::Tensor>(), pair[1].cast<at::Tensor>()};
      }
    }
    return launch->allocate_and_go(reinterpret_cast<int64_t>(x.data_ptr()), 0);
  }

  at::Tensor dequantize_op(const at::Tensor& xq, const at::Tensor& scales,
                           const std::string& layout, at::ScalarType out_dtype) const {
    Key key('d');
    key.put(layout.data(), layout.size());
    key.put(static_cast<int64_t>(out_dtype));
    LaunchPtr launch;
    const c10::DeviceIndex current = c10::cuda::current_device();
    if (key.put(xq, current) && key.put(scales, current)) {
      key.put(1);  // the output allocated here
      launch = find(key);
    }
    {
      py::gil_scoped_acquire gil;
      if (launch == nullptr || hooked()) {
        return py::reinterpret_borrow<py::object>(python_dequantize_)(xq, scales, layout, out_dtype)
            .cast<at::Tensor>();
      }
    }
    return launch->allocate_and_go(pointer(xq), pointer(scales))[0];
  }

  static int64_t pointer(const at::Tensor& t) { return reinterpret_cast<int64_t>(t.data_ptr()); }

  // `out` of a plain launcher's call: None (outputs allocated here) or a tuple of `count`
  // tensors; false for anything else (the Python launcher says what is wrong).
  static bool outs_of(py::handle out, size_t count, std::vector<const at::Tensor*>* outs) {
    if (out.is_none()) return true;
    if (!PyTuple_CheckExact(out.ptr()) || PyTuple_GET_SIZE(out.ptr()) != Py_ssize_t(count))
      return false;
    for (size_t i = 0; i < count; ++i) {
      const at::Tensor* t = tensor_of(PyTuple_GET_ITEM(out.ptr(), i));
      if (t == nullptr) return false;
      outs->push_back(t);
    }
    return true;
  }

  // The outputs' alignment bits; outputs allocated here are aligned.
  static void put_alignment(Key& key, const std::vector<const at::Tensor*>& outs) {
    int64_t bits = 0;
    for (size_t i = 0; i < outs.size(); ++i) bits += Key::aligned(*outs[i]) << i;
    key.put(outs.empty() ? (key.bytes()[0] == 'q' ? 3 : 1) : bits);
  }

  LaunchPtr find(const Key& key) const {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto found = classes_.find(key.bytes());
    return found == classes_.end() ? nullptr : found->second;
  }

  void store(const Key& key, LaunchPtr launch) {
    std::lock_guard<std::mutex> lock(mutex_);
    classes_[key.bytes()] = std::move(launch);
  }

  // Whether a Triton launch hook is installed (a profiler): the call then goes to the Python
  // launcher, which calls it (mxfp8.py's _hooks_installed, read the same way). GIL held.
  bool hooked() const { return hook_set(enter_) || hook_set(exit_); }

  bool hook_set(PyObject* name) const {
    PyObject* hook = PyObject_GetAttr(runtime_, name);
    if (hook == nullptr) {
      PyErr_Clear();
      return true;  // unreadable: let Python's path decide
    }
    bool set = hook != Py_None;
    if (set) {
      PyObject* calls = PyObject_GetAttr(hook, calls_);
      if (calls == nullptr) {
        PyErr_Clear();  // a plain callable: a hook
      } else {
        const int truth = PyObject_IsTrue(calls);
        if (truth < 0) PyErr_Clear();
        set = truth != 0;
        Py_DECREF(calls);
      }
    }
    Py_DECREF(hook);
    return set;
  }

  PyObject* runtime_;
  PyObject* enter_;
  PyObject* exit_;
  PyObject* calls_;
  PyObject* python_quantize_ = nullptr;
  PyObject* python_dequantize_ = nullptr;
  std::unique_ptr<torch::Library> library_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, LaunchPtr> classes_;
};

}  // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  py::class_<Launch, std::shared_ptr<Launch>>(m, "Launch")
      .def(py::init<int64_t, std::vector<int64_t>, int64_t, int64_t, std::vector<std::string>,
                    std::vector<int64_t>, int64_t, int64_t, std::vector<std::vector<int64_t>>,
                    std::vector<at::ScalarType>>())
      .def("launch", &Launch::launch)
      .def("launch_new", &Launch::launch_new);
  py::class_<Launchers, std::shared_ptr<Launchers>>(m, "Launchers")
      .def(py::init<py::object>())
      .def("quantize", &Launchers::quantize)
      .def("dequantize", &Launchers::dequantize)
      .def("add_quantize", &Launchers::add_quantize)
      .def("add_dequantize", &Launchers::add_dequantize)
      .def("register_ops", &Launchers::register_ops)
      .def("__len__", &Launchers::size);
}
