// A real PyTorch C++ extension for the swapcheck real-torch cases: a few
// libtorch calls behind a pybind11 module, as torchvision's `_C` is made.
// make_real_cases.py compiles it twice against Debian's libtorch: with the
// default _GLIBCXX_USE_CXX11_ABI=1 (loads) and with =0, whose import of
// torch::jit::parseSchemaOrName(std::string const&) is mangled `...ERKSs`,
// a name Debian's libtorch_cpu.so (ABI 1) does not export.
#include <string>

#include <ATen/ATen.h>
#include <pybind11/pybind11.h>
#include <torch/csrc/autograd/generated/variable_factories.h>
#include <torch/csrc/jit/frontend/function_schema_parser.h>
#include <torch/csrc/utils/pybind.h>  // at::Tensor <-> torch.Tensor (libtorch_python)

#ifndef WHEELMOD_EXT_NAME
#error "compile with -DWHEELMOD_EXT_NAME=<module name>"
#endif

namespace {

// torch::ones (autograd factory, libtorch_cpu) and at::Tensor::add.
at::Tensor ones_plus(int64_t size, double value) {
  const at::Tensor ones = torch::ones({size});
  return ones.add(value);
}

// The operator name of a schema, through the JIT's schema parser.
std::string schema_name(const std::string& schema) {
  const auto parsed = torch::jit::parseSchemaOrName(schema);
  return parsed.is_right() ? parsed.right().name() : parsed.left().name;
}

}  // namespace

PYBIND11_MODULE(WHEELMOD_EXT_NAME, module) {
  module.doc() = "wheelmod swapcheck real-torch fixture";
  module.def("ones_plus", &ones_plus, "torch.ones(size) + value");
  module.def("schema_name", &schema_name, "operator name of a schema");
}
