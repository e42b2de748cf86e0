# tree-sitter core and the Python grammar, as C sources from their npm packages.
# Fetched at configure time into the build tree (never committed), pinned by version and
# checked against the registry's sha512 integrity before anything is extracted.

set(GRAPHSAFE_TS_CORE_VERSION 0.25.1)
set(GRAPHSAFE_TS_CORE_SHA512
    9ab70476462d1dfacad40e9fb373ba171901a344228395d45ea1e1c54390bb46e63e8d34405e17692c7879da5acdd1f0c674828e518a1a022a59d68de1dbd32c)
set(GRAPHSAFE_TS_PYTHON_VERSION 0.25.0)
set(GRAPHSAFE_TS_PYTHON_SHA512
    782989c7acd06b7e46c5a0ad403fb05c73a162a07110bf9ba7bd56fecddf70332ed3a32bb739155d1e37edd46b0ab6eb0dbc8bb940c9a4083272cee772780b5f)

set(GRAPHSAFE_DEPS_DIR "${CMAKE_BINARY_DIR}/_deps" CACHE PATH "Where npm tarballs are unpacked")
# A shared download cache so that several build trees do not fetch the same tarballs again.
set(GRAPHSAFE_NPM_CACHE "$ENV{HOME}/.cache/graphsafe/npm" CACHE PATH "npm tarball cache")

function(graphsafe_fetch_npm name version sha512 out_dir)
  set(tarball "${GRAPHSAFE_NPM_CACHE}/${name}-${version}.tgz")
  set(dest "${GRAPHSAFE_DEPS_DIR}/${name}-${version}")
  if(EXISTS "${dest}/.verified")
    set(${out_dir} "${dest}/package" PARENT_SCOPE)
    return()
  endif()
  file(MAKE_DIRECTORY "${GRAPHSAFE_NPM_CACHE}")
  if(EXISTS "${tarball}")
    file(SHA512 "${tarball}" have)
    if(NOT have STREQUAL sha512)
      file(REMOVE "${tarball}")
    endif()
  endif()
  if(NOT EXISTS "${tarball}")
    find_program(NPM_EXECUTABLE npm REQUIRED)
    execute_process(
      COMMAND "${NPM_EXECUTABLE}" pack "${name}@${version}" --silent
      WORKING_DIRECTORY "${GRAPHSAFE_NPM_CACHE}"
      RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "npm pack ${name}@${version} failed: ${err}")
    endif()
  endif()
  file(SHA512 "${tarball}" have)
  if(NOT have STREQUAL sha512)
    file(REMOVE "${tarball}")
    message(FATAL_ERROR "${name}-${version}.tgz: sha512 ${have} does not match the pinned ${sha512}")
  endif()
  file(REMOVE_RECURSE "${dest}")
  file(ARCHIVE_EXTRACT INPUT "${tarball}" DESTINATION "${dest}")
  file(TOUCH "${dest}/.verified")
  set(${out_dir} "${dest}/package" PARENT_SCOPE)
endfunction()

graphsafe_fetch_npm(tree-sitter ${GRAPHSAFE_TS_CORE_VERSION} ${GRAPHSAFE_TS_CORE_SHA512} ts_core)
graphsafe_fetch_npm(tree-sitter-python ${GRAPHSAFE_TS_PYTHON_VERSION} ${GRAPHSAFE_TS_PYTHON_SHA512} ts_python)

add_library(tree_sitter STATIC "${ts_core}/vendor/tree-sitter/lib/src/lib.c")
target_include_directories(tree_sitter SYSTEM
  PUBLIC "${ts_core}/vendor/tree-sitter/lib/include"
  PRIVATE "${ts_core}/vendor/tree-sitter/lib/src")
set_target_properties(tree_sitter PROPERTIES C_STANDARD 11 POSITION_INDEPENDENT_CODE ON)
target_compile_options(tree_sitter PRIVATE -w)

add_library(tree_sitter_python STATIC "${ts_python}/src/parser.c" "${ts_python}/src/scanner.c")
target_include_directories(tree_sitter_python PRIVATE "${ts_python}/src")
set_target_properties(tree_sitter_python PROPERTIES C_STANDARD 11 POSITION_INDEPENDENT_CODE ON)
target_compile_options(tree_sitter_python PRIVATE -w)
target_link_libraries(tree_sitter_python PUBLIC tree_sitter)
