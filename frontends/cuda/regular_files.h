#pragma once

// The file system Clang reads the analyzed code through: only regular files (and directories
// to look in). A device, a FIFO or a socket named by an `#include` (`</dev/stdin>`,
// `</dev/zero>`, a FIFO in the tree) would block the analysis or feed it without end; it is
// reported as a header not found instead.

#include <llvm/ADT/IntrusiveRefCntPtr.h>
#include <llvm/Support/VirtualFileSystem.h>

namespace graphsafe::cuda {

llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> regularFilesOnly(
    llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> underlying);

}  // namespace graphsafe::cuda
