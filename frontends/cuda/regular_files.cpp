#include "frontends/cuda/regular_files.h"

#include <system_error>
#include <utility>

namespace graphsafe::cuda {

namespace {

namespace vfs = llvm::vfs;

bool readable(const vfs::Status& status) {
  return status.getType() == llvm::sys::fs::file_type::regular_file ||
         status.getType() == llvm::sys::fs::file_type::directory_file;
}

class RegularFilesOnly final : public vfs::ProxyFileSystem {
 public:
  explicit RegularFilesOnly(llvm::IntrusiveRefCntPtr<vfs::FileSystem> underlying)
      : ProxyFileSystem(std::move(underlying)) {}

  llvm::ErrorOr<vfs::Status> status(const llvm::Twine& path) override {
    auto status = ProxyFileSystem::status(path);
    if (status && !readable(*status)) return refused();
    return status;
  }

  bool exists(const llvm::Twine& path) override {
    auto found = status(path);
    return static_cast<bool>(found);
  }

  llvm::ErrorOr<std::unique_ptr<vfs::File>> openFileForRead(const llvm::Twine& path) override {
    // Asked before opening: opening a FIFO for reading blocks until a writer comes.
    auto found = ProxyFileSystem::status(path);
    if (!found) return found.getError();
    if (found->getType() != llvm::sys::fs::file_type::regular_file) return refused();
    return ProxyFileSystem::openFileForRead(path);
  }

 private:
  static std::error_code refused() {
    return std::make_error_code(std::errc::no_such_file_or_directory);
  }
};

}  // namespace

llvm::IntrusiveRefCntPtr<vfs::FileSystem> regularFilesOnly(
    llvm::IntrusiveRefCntPtr<vfs::FileSystem> underlying) {
  return llvm::makeIntrusiveRefCnt<RegularFilesOnly>(std::move(underlying));
}

}  // namespace graphsafe::cuda
