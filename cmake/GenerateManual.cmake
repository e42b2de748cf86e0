# Writes the man page (gzipped, as Debian installs it) and the shell completions, each made by
# the built binary from its own command line (analyzer/cli/man_page.h, shell_completion.h).
#   cmake -DGRAPHSAFE=path/to/graphsafe -DOUT=build/share -P cmake/GenerateManual.cmake
foreach(what "man/man1/graphsafe.1:generate-man-page"
             "bash-completion/completions/graphsafe:generate-shell-completion;bash"
             "zsh/vendor-completions/_graphsafe:generate-shell-completion;zsh"
             "fish/vendor_completions.d/graphsafe.fish:generate-shell-completion;fish")
  string(FIND "${what}" ":" at)
  string(SUBSTRING "${what}" 0 ${at} file)
  math(EXPR at "${at} + 1")
  string(SUBSTRING "${what}" ${at} -1 arguments)
  get_filename_component(dir "${OUT}/${file}" DIRECTORY)
  file(MAKE_DIRECTORY "${dir}")
  execute_process(COMMAND "${GRAPHSAFE}" ${arguments} OUTPUT_FILE "${OUT}/${file}"
                  RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${GRAPHSAFE} ${arguments} failed (${result})")
  endif()
endforeach()
execute_process(COMMAND gzip -9nf "${OUT}/man/man1/graphsafe.1" RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "gzip of the man page failed")
endif()
