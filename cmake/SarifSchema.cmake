# The SARIF 2.1.0 JSON schema, for the test that validates graphsafe's SARIF output against it.
# The npm package @microsoft/jest-sarif ships the schema (sarif-2.1.0-rtm.5.json, the OASIS
# schema as GitHub and SchemaStore publish it); the tarball is pinned by version and checked
# against the registry's sha512 before the schema is extracted into the build tree. Without
# network access GRAPHSAFE_SARIF_SCHEMA stays empty and the schema test skips itself (the
# field-by-field checks of what GitHub code scanning requires still run).

set(GRAPHSAFE_SARIF_SCHEMA_PACKAGE "@microsoft/jest-sarif")
set(GRAPHSAFE_SARIF_SCHEMA_VERSION 1.0.0-beta.0)
set(GRAPHSAFE_SARIF_SCHEMA_SHA512
    0357ce84f77a21ce620e4e05f583f0d6a341e1717eefe22f891ef197caf617a433424c7972963d2ec1a4dab1318852047016e3a559d29b058606e9004a4890f4)
set(GRAPHSAFE_SARIF_SCHEMA_MEMBER "package/lib/schemas/sarif-2.1.0-rtm.5.json")

function(graphsafe_fetch_sarif_schema out_var)
  if(NOT GRAPHSAFE_NPM_CACHE)
    set(GRAPHSAFE_NPM_CACHE "$ENV{HOME}/.cache/graphsafe/npm")
  endif()
  set(tarball "${GRAPHSAFE_NPM_CACHE}/microsoft-jest-sarif-${GRAPHSAFE_SARIF_SCHEMA_VERSION}.tgz")
  set(dest "${CMAKE_BINARY_DIR}/_deps/sarif-schema-${GRAPHSAFE_SARIF_SCHEMA_VERSION}")
  set(schema "${dest}/${GRAPHSAFE_SARIF_SCHEMA_MEMBER}")
  set(${out_var} "" PARENT_SCOPE)
  if(EXISTS "${dest}/.verified")
    set(${out_var} "${schema}" PARENT_SCOPE)
    return()
  endif()
  file(MAKE_DIRECTORY "${GRAPHSAFE_NPM_CACHE}")
  if(EXISTS "${tarball}")
    file(SHA512 "${tarball}" have)
    if(NOT have STREQUAL GRAPHSAFE_SARIF_SCHEMA_SHA512)
      file(REMOVE "${tarball}")
    endif()
  endif()
  if(NOT EXISTS "${tarball}")
    find_program(NPM_EXECUTABLE npm)
    if(NOT NPM_EXECUTABLE)
      message(WARNING "npm not found: the SARIF schema test will be skipped")
      return()
    endif()
    execute_process(
      COMMAND "${NPM_EXECUTABLE}" pack
              "${GRAPHSAFE_SARIF_SCHEMA_PACKAGE}@${GRAPHSAFE_SARIF_SCHEMA_VERSION}" --silent
      WORKING_DIRECTORY "${GRAPHSAFE_NPM_CACHE}"
      RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err TIMEOUT 120)
    if(NOT rc EQUAL 0 OR NOT EXISTS "${tarball}")
      message(WARNING "npm pack ${GRAPHSAFE_SARIF_SCHEMA_PACKAGE} failed (${rc}): the SARIF "
                      "schema test will be skipped. ${err}")
      return()
    endif()
  endif()
  file(SHA512 "${tarball}" have)
  if(NOT have STREQUAL GRAPHSAFE_SARIF_SCHEMA_SHA512)
    file(REMOVE "${tarball}")
    message(FATAL_ERROR "microsoft-jest-sarif-${GRAPHSAFE_SARIF_SCHEMA_VERSION}.tgz: sha512 "
                        "${have} does not match the pinned ${GRAPHSAFE_SARIF_SCHEMA_SHA512}")
  endif()
  file(REMOVE_RECURSE "${dest}")
  file(ARCHIVE_EXTRACT INPUT "${tarball}" DESTINATION "${dest}"
       PATTERNS "${GRAPHSAFE_SARIF_SCHEMA_MEMBER}")
  if(NOT EXISTS "${schema}")
    message(WARNING "${tarball} has no ${GRAPHSAFE_SARIF_SCHEMA_MEMBER}: the SARIF schema test "
                    "will be skipped")
    return()
  endif()
  file(TOUCH "${dest}/.verified")
  set(${out_var} "${schema}" PARENT_SCOPE)
endfunction()
