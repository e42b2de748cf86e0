# third-party-notices: the licences and copyright notices of the libraries linked into the
# binary and the module (cmake/PortableLinking.cmake), which their licences require a binary
# distribution to carry. Assembled at configure time from the copyright files of the Debian
# packages they come from and the LICENSE files of the tree-sitter npm packages; nothing is
# copied into the repository.
#   graphsafe_third_party_notices(OUT_FILE [CUDA])
function(graphsafe_third_party_notices out)
  cmake_parse_arguments(PARSE_ARGV 1 arg "CUDA" "" "")
  set(sources
    "tree-sitter ${GRAPHSAFE_TS_CORE_VERSION}=${GRAPHSAFE_DEPS_DIR}/tree-sitter-${GRAPHSAFE_TS_CORE_VERSION}/package/LICENSE"
    "tree-sitter-python ${GRAPHSAFE_TS_PYTHON_VERSION}=${GRAPHSAFE_DEPS_DIR}/tree-sitter-python-${GRAPHSAFE_TS_PYTHON_VERSION}/package/LICENSE"
    "yaml-cpp=/usr/share/doc/libyaml-cpp-dev/copyright"
    "fmt=/usr/share/doc/libfmt-dev/copyright"
    "toml++=/usr/share/doc/libtomlplusplus-dev/copyright"
    "nlohmann-json=/usr/share/doc/nlohmann-json3-dev/copyright"
    "the GNU C++ library=/usr/share/doc/libstdc++-12-dev/copyright")
  if(arg_CUDA)
    list(APPEND sources
      "Clang=/usr/share/doc/libclang-19-dev/copyright"
      "LLVM=/usr/share/doc/llvm-19-dev/copyright"
      "zlib=/usr/share/doc/zlib1g-dev/copyright"
      "zstd=/usr/share/doc/libzstd-dev/copyright")
  endif()
  set(text "Libraries linked into graphsafe, and their licences.\n")
  foreach(source IN LISTS sources)
    string(FIND "${source}" "=" at)
    string(SUBSTRING "${source}" 0 ${at} name)
    math(EXPR at "${at} + 1")
    string(SUBSTRING "${source}" ${at} -1 file)
    if(NOT EXISTS "${file}")
      message(FATAL_ERROR "third-party notices: ${file} (${name}) is missing")
    endif()
    file(READ "${file}" notice)
    string(APPEND text "\n==== ${name} (${file})\n\n${notice}")
  endforeach()
  file(WRITE "${out}" "${text}")
endfunction()
