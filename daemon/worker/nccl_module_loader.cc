#include "daemon/worker/nccl_module_loader.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "daemon/backend/nccl/nccl_module.h"

namespace fabricpulse::worker {
namespace {

class LoadedModule final : public NcclModule {
 public:
  LoadedModule(backend::NcclModuleVisibleGpusFn visible,
               backend::NcclModuleMakeBackendFn make)
      : visible_(visible), make_(make) {}
  int VisibleGpus() const override { return visible_(); }
  std::unique_ptr<backend::CollectiveBackend> MakeBackend(
      int gpu, double mem_fraction) const override {
    return std::unique_ptr<backend::CollectiveBackend>(
        make_(gpu, mem_fraction));
  }

 private:
  const backend::NcclModuleVisibleGpusFn visible_;
  const backend::NcclModuleMakeBackendFn make_;
};

absl::StatusOr<const NcclModule*> Load() {
  const std::string path = NcclModulePath();
  std::error_code error;
  if (!std::filesystem::exists(path, error)) {
    return absl::NotFoundError(
        absl::StrCat("backend: nccl is not in this build (no ", path,
                     "); use --backend gloo, or a build with CUDA and NCCL"));
  }
  // RTLD_LOCAL: the module's own copies of FabricPulse code stay private.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "backend: nccl cannot be loaded here: ", dlerror(),
        " (install NCCL and the CUDA runtime, or put their lib folder on "
        "LD_LIBRARY_PATH; CPU-only nodes run --backend gloo)"));
  }
  auto abi = reinterpret_cast<backend::NcclModuleAbiFn>(
      dlsym(handle, backend::kNcclModuleAbiSymbol));
  auto visible = reinterpret_cast<backend::NcclModuleVisibleGpusFn>(
      dlsym(handle, backend::kNcclModuleVisibleGpusSymbol));
  auto make = reinterpret_cast<backend::NcclModuleMakeBackendFn>(
      dlsym(handle, backend::kNcclModuleMakeBackendSymbol));
  if (abi == nullptr || visible == nullptr || make == nullptr ||
      abi() != backend::kNcclModuleAbi) {
    dlclose(handle);
    return absl::FailedPreconditionError(
        absl::StrCat("backend: ", path,
                     " is not this build's NCCL module (install the "
                     "worker and lib/ from one release)"));
  }
  // Never unloaded: its threads and CUDA state live as long as the process.
  return new LoadedModule(visible, make);
}

}  // namespace

std::string NcclModulePath() {
  if (const char* env = std::getenv(kNcclModuleEnv); env != nullptr && *env) {
    return env;
  }
  std::error_code error;
  const std::filesystem::path exe =
      std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return "libfabricpulse-nccl.so";
  return (exe.parent_path().parent_path() / "lib" / "libfabricpulse-nccl.so")
      .string();
}

absl::StatusOr<const NcclModule*> LoadNcclModule() {
  static const auto* loaded = new absl::StatusOr<const NcclModule*>(Load());
  return *loaded;
}

}  // namespace fabricpulse::worker
