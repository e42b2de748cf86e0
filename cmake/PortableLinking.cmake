# Portable linking (GRAPHSAFE_PORTABLE, docs/install.md): the graphsafe binary and the C++
# frontend module depend on nothing but glibc (libc, libm, the dynamic loader) and libgcc_s,
# the libraries every Linux system has and the manylinux policy allows. Everything else is
# linked in:
#   - libstdc++: -static-libstdc++ (libgcc_s stays shared: its static unwinder would need
#     _dl_find_object, glibc 2.35);
#   - yaml-cpp: Debian's static archive;
#   - fmt: header-only (Debian ships no static fmt);
#   - toml++: its implementation compiled here from Debian's headers (no static toml++ either);
#   - Clang and LLVM (the module): Debian's static component archives, with zlib and zstd.
# The glibc baseline is measured, not assumed: tests/e2e/portable_binary.sh reads the symbol
# versions both files need and fails when one is newer than GRAPHSAFE_GLIBC_BASELINE, which is
# also the manylinux tag scripts/build_wheel.py gives the wheels.
set(GRAPHSAFE_GLIBC_BASELINE "2.34")

# std::random_device's arc4random (glibc 2.36), provided by the files that link libstdc++ in.
add_library(graphsafe_glibc_compat OBJECT "${PROJECT_SOURCE_DIR}/cmake/portable/arc4random.c")
set_target_properties(graphsafe_glibc_compat PROPERTIES POSITION_INDEPENDENT_CODE ON)
target_compile_options(graphsafe_glibc_compat PRIVATE ${GRAPHSAFE_WARNINGS})

# yaml-cpp from its static archive, with the include directories of Debian's target.
find_library(GRAPHSAFE_YAML_CPP_ARCHIVE NAMES libyaml-cpp.a REQUIRED)
get_target_property(yaml_cpp_includes yaml-cpp INTERFACE_INCLUDE_DIRECTORIES)
add_library(graphsafe_yaml_cpp STATIC IMPORTED)
set_target_properties(graphsafe_yaml_cpp PROPERTIES
  IMPORTED_LOCATION "${GRAPHSAFE_YAML_CPP_ARCHIVE}"
  INTERFACE_INCLUDE_DIRECTORIES "${yaml_cpp_includes}")

# toml++ compiled once, as the packaged shared library is (see the source file).
add_library(graphsafe_tomlplusplus STATIC
  "${PROJECT_SOURCE_DIR}/cmake/portable/tomlplusplus_implementation.cpp")
get_target_property(tomlplusplus_includes tomlplusplus::tomlplusplus INTERFACE_INCLUDE_DIRECTORIES)
target_include_directories(graphsafe_tomlplusplus SYSTEM PUBLIC "${tomlplusplus_includes}")
target_compile_definitions(graphsafe_tomlplusplus PUBLIC TOML_HEADER_ONLY=0)
target_compile_options(graphsafe_tomlplusplus PRIVATE -w)

# The link options of a file that must run on any system with the baseline glibc.
function(graphsafe_link_portably target)
  target_sources(${target} PRIVATE $<TARGET_OBJECTS:graphsafe_glibc_compat>)
  target_link_options(${target} PRIVATE -static-libstdc++ -Wl,--gc-sections -Wl,--as-needed)
endfunction()

# Clang and LLVM from their static archives, for the module: the linker takes from each
# archive only what the module references (a few seconds with ld.bfd, about 40 MB stripped).
# Clang's own CMake targets cannot be used: they depend on the shared libLLVM.
function(graphsafe_link_clang_statically target)
  file(GLOB clang_archives "${LLVM_LIBRARY_DIR}/libclang[A-Z]*.a")
  file(GLOB llvm_archives "${LLVM_LIBRARY_DIR}/libLLVM[A-Z]*.a")
  find_library(GRAPHSAFE_ZLIB_ARCHIVE NAMES libz.a REQUIRED)
  find_library(GRAPHSAFE_ZSTD_ARCHIVE NAMES libzstd.a REQUIRED)
  graphsafe_link_portably(${target})
  # --exclude-libs: no symbol of the archives is exported from the module.
  target_link_libraries(${target} PRIVATE
    -Wl,--start-group ${clang_archives} ${llvm_archives} -Wl,--end-group
    "${GRAPHSAFE_ZLIB_ARCHIVE}" "${GRAPHSAFE_ZSTD_ARCHIVE}" -Wl,--exclude-libs,ALL)
endfunction()
