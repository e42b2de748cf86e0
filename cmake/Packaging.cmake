# Debian packages with CPack: `cpack -G DEB` in the build tree (scripts/package.sh runs it into a
# directory of its choice) writes two packages of the project's version:
#   graphsafe        PREFIX/bin/graphsafe: the Python analysis, no LLVM
#   graphsafe-cuda   PREFIX/lib/graphsafe/libgraphsafe_cuda.so: the CUDA C++ frontend, for the
#                    graphsafe package of the same version, on Debian 12's Clang 19 libraries
# The dependencies are the Debian 12 (bookworm) packages of the libraries each file links
# (`ldd build/graphsafe`, `ldd build/libgraphsafe_cuda.so`), written out rather than computed by
# dpkg-shlibdeps so that packaging needs nothing beyond CMake. libclang-common-19-dev holds the
# Clang resource directory (/usr/lib/llvm-19/lib/clang/19: the compiler's own headers, the CUDA
# wrappers among them) that the frontend parses with.

set(CPACK_GENERATOR "DEB")
set(CPACK_PACKAGE_NAME "graphsafe")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_VENDOR "graphsafe")
set(CPACK_PACKAGE_CONTACT "graphsafe maintainers <graphsafe@users.noreply.github.com>")
# No CPACK_PACKAGE_DESCRIPTION_SUMMARY: CPackDeb would put it above each package's own
# description, whose first line is that package's summary.
set(CPACK_PACKAGE_INSTALL_DIRECTORY "graphsafe")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_STRIP_FILES ON)
if(GRAPHSAFE_CUDA_FRONTEND)
  set(CPACK_COMPONENTS_ALL graphsafe cuda)
else()
  set(CPACK_COMPONENTS_ALL graphsafe)
endif()

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME "DEB-DEFAULT")
set(CPACK_DEBIAN_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_DEBIAN_PACKAGE_SECTION "devel")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)

set(CPACK_DEBIAN_GRAPHSAFE_PACKAGE_NAME "graphsafe")
set(CPACK_DEBIAN_GRAPHSAFE_PACKAGE_DEPENDS
  "libc6 (>= 2.34), libgcc-s1 (>= 3.0), libstdc++6 (>= 12), libyaml-cpp0.7 (>= 0.7.0), libfmt9 (>= 9.1.0), libtomlplusplus3 (>= 3.3.0)")
set(CPACK_DEBIAN_GRAPHSAFE_DESCRIPTION
  "static analyzer for CUDA graph capture hazards
graphsafe reads PyTorch Python code and CUDA C++ and flags what a CUDA graph
freezes or refuses during capture, before the code runs. This package analyzes
Python; install graphsafe-cuda to analyze CUDA C++ too.")
set(CPACK_DEBIAN_GRAPHSAFE_PACKAGE_SUGGESTS "graphsafe-cuda (= ${PROJECT_VERSION})")

set(CPACK_DEBIAN_CUDA_PACKAGE_NAME "graphsafe-cuda")
# The binary and the module exchange model objects: only the same version fits (the loader
# also refuses a module whose layout fingerprint differs).
set(CPACK_DEBIAN_CUDA_PACKAGE_DEPENDS
  "graphsafe (= ${PROJECT_VERSION}), libc6 (>= 2.34), libgcc-s1 (>= 3.0), libstdc++6 (>= 12), libclang-cpp19 (>= 1:19.1), libllvm19 (>= 1:19.1), libclang-common-19-dev (>= 1:19.1)")
set(CPACK_DEBIAN_CUDA_DESCRIPTION
  "CUDA C++ frontend for graphsafe (Clang 19)
The module graphsafe loads to analyze CUDA C++ files, built on Clang
LibTooling from Debian's Clang 19 libraries.")

set(CPACK_COMPONENT_GRAPHSAFE_DISPLAY_NAME "graphsafe")
set(CPACK_COMPONENT_CUDA_DISPLAY_NAME "graphsafe CUDA C++ frontend")
set(CPACK_COMPONENT_CUDA_DEPENDS graphsafe)

include(CPack)
