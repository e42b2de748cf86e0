# Debian packages with CPack: `cpack -G DEB` in the build tree (scripts/package.sh runs it into a
# directory of its choice) writes two packages of the project's version:
#   graphsafe        PREFIX/bin/graphsafe: the Python analysis, no LLVM
#   graphsafe-cuda   PREFIX/lib/graphsafe/libgraphsafe_cuda.so: the CUDA C++ frontend, for the
#                    graphsafe package of the same version, on Debian 12's Clang 19 libraries
# The dependencies are the packages of the libraries each file links (`readelf -d`), written
# out rather than computed by dpkg-shlibdeps so that packaging needs nothing beyond CMake. A
# portable build (GRAPHSAFE_PORTABLE, the default) links glibc and libgcc_s only, and the module
# carries Clang's resource headers: both packages then install on any Debian or Ubuntu release
# with glibc 2.34 or newer. Otherwise they need Debian 12's shared libraries, and
# libclang-common-19-dev for the Clang resource directory (/usr/lib/llvm-19/lib/clang/19).
#
# Each package has its own /usr/share/doc/PACKAGE/: the copyright file (Apache-2.0, in
# Debian's machine-readable format), a changelog and the third-party notices of what is linked
# in; graphsafe also the man page and the bash, zsh and fish completions (lintian-clean:
# tests/e2e/install.sh runs lintian on both packages when it is installed).

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
if(GRAPHSAFE_PORTABLE)
  set(CPACK_DEBIAN_GRAPHSAFE_PACKAGE_DEPENDS "libc6 (>= ${GRAPHSAFE_GLIBC_BASELINE}), libgcc-s1 (>= 3.0)")
else()
  set(CPACK_DEBIAN_GRAPHSAFE_PACKAGE_DEPENDS
    "libc6 (>= 2.34), libgcc-s1 (>= 3.0), libstdc++6 (>= 12), libyaml-cpp0.7 (>= 0.7.0), libfmt9 (>= 9.1.0), libtomlplusplus3 (>= 3.3.0)")
endif()
set(CPACK_DEBIAN_GRAPHSAFE_DESCRIPTION
  "static analyzer for CUDA graph capture hazards
graphsafe reads PyTorch Python code and CUDA C++ and flags what a CUDA graph
freezes or refuses during capture, before the code runs. This package analyzes
Python; install graphsafe-cuda to analyze CUDA C++ too.")
set(CPACK_DEBIAN_GRAPHSAFE_PACKAGE_SUGGESTS "graphsafe-cuda (= ${PROJECT_VERSION})")

set(CPACK_DEBIAN_CUDA_PACKAGE_NAME "graphsafe-cuda")
# The binary and the module exchange model objects: only the same version fits (the loader
# also refuses a module whose layout fingerprint differs).
if(GRAPHSAFE_PORTABLE)
  set(CPACK_DEBIAN_CUDA_PACKAGE_DEPENDS
    "graphsafe (= ${PROJECT_VERSION}), libc6 (>= ${GRAPHSAFE_GLIBC_BASELINE}), libgcc-s1 (>= 3.0)")
else()
  set(CPACK_DEBIAN_CUDA_PACKAGE_DEPENDS
    "graphsafe (= ${PROJECT_VERSION}), libc6 (>= 2.34), libgcc-s1 (>= 3.0), libstdc++6 (>= 12), libclang-cpp19 (>= 1:19.1), libllvm19 (>= 1:19.1), libclang-common-19-dev (>= 1:19.1)")
endif()
set(CPACK_DEBIAN_CUDA_DESCRIPTION
  "CUDA C++ frontend for graphsafe (Clang 19)
The module graphsafe loads to analyze CUDA C++ files, built on Clang
LibTooling 19, with Clang's resource headers.")

set(CPACK_COMPONENT_GRAPHSAFE_DISPLAY_NAME "graphsafe")
set(CPACK_COMPONENT_CUDA_DISPLAY_NAME "graphsafe CUDA C++ frontend")
set(CPACK_COMPONENT_CUDA_DEPENDS graphsafe)

# /usr/share/doc/PACKAGE/ of each package.
include("${PROJECT_SOURCE_DIR}/cmake/ThirdPartyNotices.cmake")
execute_process(COMMAND git -C "${PROJECT_SOURCE_DIR}" log -1 --format=%h%n%aD
                OUTPUT_VARIABLE commit_and_date OUTPUT_STRIP_TRAILING_WHITESPACE
                RESULT_VARIABLE git_result ERROR_QUIET)
if(git_result EQUAL 0 AND commit_and_date MATCHES "^([0-9a-f]+)\n(.+)$")
  set(GRAPHSAFE_COMMIT "${CMAKE_MATCH_1}")
  set(GRAPHSAFE_CHANGELOG_DATE "${CMAKE_MATCH_2}")
else()
  set(GRAPHSAFE_COMMIT "unknown")
  set(GRAPHSAFE_CHANGELOG_DATE "Thu, 01 Jan 2026 00:00:00 +0000")
endif()
function(graphsafe_package_docs package component)
  set(dir "${CMAKE_BINARY_DIR}/debian/${package}")
  set(GRAPHSAFE_DOC_PACKAGE "${package}")
  configure_file("${PROJECT_SOURCE_DIR}/cmake/debian/copyright.in" "${dir}/copyright" @ONLY)
  configure_file("${PROJECT_SOURCE_DIR}/cmake/debian/changelog.in" "${dir}/changelog" @ONLY)
  if(component STREQUAL "cuda")
    graphsafe_third_party_notices("${dir}/third-party-notices" CUDA)
  else()
    graphsafe_third_party_notices("${dir}/third-party-notices")
  endif()
  foreach(name changelog third-party-notices)
    execute_process(COMMAND gzip -9nf "${dir}/${name}" RESULT_VARIABLE gzip_result)
    if(NOT gzip_result EQUAL 0)
      message(FATAL_ERROR "gzip ${dir}/${name} failed")
    endif()
  endforeach()
  install(FILES "${dir}/copyright" "${dir}/changelog.gz" "${dir}/third-party-notices.gz"
          DESTINATION "share/doc/${package}" COMPONENT ${component})
  set(overrides "${PROJECT_SOURCE_DIR}/cmake/debian/${package}.lintian-overrides")
  if(EXISTS "${overrides}" AND GRAPHSAFE_PORTABLE)
    install(FILES "${overrides}" DESTINATION share/lintian/overrides RENAME "${package}"
            COMPONENT ${component})
  endif()
endfunction()
graphsafe_package_docs(graphsafe graphsafe)
if(GRAPHSAFE_CUDA_FRONTEND)
  graphsafe_package_docs(graphsafe-cuda cuda)
endif()

include(CPack)
