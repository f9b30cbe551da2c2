// What a wheel makes importable, from its entry names: the file lists of real wheels (the sample
// index's cuda-bindings and nvidia-cublas, and PyPI's pillow, PyYAML, sympy, nvidia-cublas-cu12
// and pytorch-triton-rocm, abridged to the entries that decide), each against the name
// EasyBuild's extension check would import.
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "wheel/import_names.hpp"

namespace {

using wheelmod::wheel::extension_import;
using Kind = wheelmod::wheel::ExtensionImport::Kind;

struct Decided {
  Kind kind;
  std::string name;
};

Decided decide(std::string_view project, const std::vector<std::string>& entries) {
  const auto found = extension_import(project, entries);
  return {found.kind, found.name};
}

}  // namespace

TEST_CASE("the project's own name, when the wheel installs it", "[wheel][imports]") {
  const auto torch = decide(
      "torch", {"functorch/__init__.py", "torch/__init__.py",
                "torch/_C.cpython-313-x86_64-linux-gnu.so", "torch-2.10.0+cu130.dist-info/RECORD"});
  CHECK(torch.kind == Kind::project_name);
  CHECK(torch.name == "torch");
  // A top-level module file (sympy ships isympy.py beside its package).
  CHECK(decide("typing-extensions",
               {"typing_extensions.py", "typing_extensions-4.12.2.dist-info/METADATA"})
            .kind == Kind::project_name);
  CHECK(decide("sympy", {"isympy.py", "sympy/__init__.py",
                         "sympy-1.14.0.data/data/share/man/"
                         "man1/isympy.1"})
            .kind == Kind::project_name);
  // EasyBuild lower-cases the name: an extension named MarkupSafe imports markupsafe.
  CHECK(decide("MarkupSafe", {"markupsafe/__init__.py"}).kind == Kind::project_name);
}

TEST_CASE("a dotted path when the name's words are a namespace and a package", "[wheel][imports]") {
  // cuda-bindings installs cuda/bindings/ under the `cuda` namespace package it shares with
  // cuda-core and cuda-pathfinder: `import cuda_bindings` fails, `import cuda.bindings` works.
  const auto bindings =
      decide("cuda-bindings", {"cuda/bindings/__init__.py", "cuda/bindings/_version.py",
                               "cuda/bindings/cyruntime.cpython-313-x86_64-linux-gnu.so",
                               "cuda_bindings-12.9.4.dist-info/top_level.txt"});
  CHECK(bindings.kind == Kind::other_name);
  CHECK(bindings.name == "cuda.bindings");
  // Zip directory entries are directories too.
  CHECK(decide("cuda-bindings", {"cuda/", "cuda/bindings/", "cuda/bindings/__init__.py"}).name ==
        "cuda.bindings");
}

TEST_CASE("another top-level name, when that is what the wheel installs", "[wheel][imports]") {
  const auto pillow = decide(
      "pillow", {"PIL/__init__.py", "PIL/_imaging.cpython-312-x86_64-linux-gnu.so",
                 "pillow.libs/libjpeg-8a13c6e0.so.62.4.0", "pillow-11.0.0.dist-info/RECORD"});
  CHECK(pillow.kind == Kind::other_name);
  CHECK(pillow.name == "PIL");
  // A word of the name: pytorch-triton-rocm installs triton.
  CHECK(decide("pytorch-triton-rocm", {"triton/__init__.py", "triton/_C/libtriton.so"}).name ==
        "triton");
  // Private modules are not what a user imports: PyYAML's _yaml is passed over for yaml.
  CHECK(decide("pyyaml", {"_yaml/__init__.py", "yaml/__init__.py",
                          "yaml/_yaml.cpython-312-x86_64-linux-gnu.so"})
            .name == "yaml");
  // Packages installed through the .data directory's purelib/platlib land in site-packages.
  CHECK(decide("oddball",
               {"oddball-1.0.data/purelib/odd/__init__.py", "oddball-1.0.data/scripts/run-odd"})
            .name == "odd");
  // A namespace holding one package is named by the package.
  CHECK(decide("acme-tools", {"acme/widgets/__init__.py"}).name == "acme.widgets");
  // CUDA 12 library wheels made `nvidia` a regular package: it imports.
  CHECK(decide("nvidia-cublas-cu12",
               {"nvidia/__init__.py", "nvidia/cublas/__init__.py",
                "nvidia/cublas/lib/libcublas.so.12", "nvidia/cublas/lib/libcublasLt.so.12"})
            .name == "nvidia");
}

TEST_CASE("nothing to import in a library wheel", "[wheel][imports]") {
  // The sample index's nvidia-cublas 13: headers and libraries under nvidia/cu13/, no module.
  const auto cublas =
      decide("nvidia-cublas", {"nvidia/cu13/include/cublas.h", "nvidia/cu13/lib/libnvblas.so.13",
                               "nvidia_cublas-13.1.0.3.dist-info/top_level.txt"});
  CHECK(cublas.kind == Kind::nothing);
  // An untagged .so is a shared library, not an extension module.
  CHECK(decide("nvidia-cusparselt-cu12", {"nvidia/cusparselt/lib/libcusparseLt.so"}).kind ==
        Kind::nothing);
  CHECK(decide("empty", {"empty-1.0.dist-info/METADATA"}).kind == Kind::nothing);
}
