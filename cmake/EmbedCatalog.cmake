# Embeds every rules/**/*.yaml catalog entry into the binary as a string table, so that
# `graphsafe rules` and `graphsafe explain` work from an installed binary with no data files.
# Runs as a build step (cmake -P), re-run whenever a YAML file changes.
# The newest runtime-probe results file is embedded next to it, so that a rule's page cites what
# its cases measured on a GPU.
#   -DOUT=<generated .cpp>  -DFILES=<;-list of yaml files>  -DRESULTS=<results .json or empty>
set(body "// Generated from rules/**/*.yaml by cmake/EmbedCatalog.cmake. Do not edit.\n")
string(APPEND body "#include \"analyzer/catalog/embedded_catalog.h\"\n\nnamespace graphsafe {\n")
string(APPEND body "const std::vector<EmbeddedFile>& embeddedCatalogFiles() {\n")
string(APPEND body "  static const std::vector<EmbeddedFile> files = {\n")
foreach(f IN LISTS FILES)
  file(READ "${f}" content)
  get_filename_component(name "${f}" NAME)
  string(APPEND body "    {\"${name}\", R\"GSYAML(${content})GSYAML\"},\n")
endforeach()
string(APPEND body "  };\n  return files;\n}\n\n")
string(APPEND body "EmbeddedFile embeddedProbeResults() {\n")
if(RESULTS)
  file(READ "${RESULTS}" results)
  get_filename_component(results_name "${RESULTS}" NAME)
  string(APPEND body "  return {\"${results_name}\", R\"GSJSON(${results})GSJSON\"};\n")
else()
  string(APPEND body "  return {};\n")
endif()
string(APPEND body "}\n\n}  // namespace graphsafe\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
  if(old STREQUAL body)
    return()
  endif()
endif()
file(WRITE "${OUT}" "${body}")
