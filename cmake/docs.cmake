# Manual pages (man/) and the bash completion (completion/), installed with
# the program. Their tests are tests/cli/man_options.sh (the pages against
# the help texts), man_lint.sh (mandoc and groff warnings) and completion.sh.
include(GNUInstallDirs)

install(FILES man/convoy.1 man/convoy-filter.1 man/convoy-design.1 man/convoy-live.1
              man/convoy-bench.1 man/convoy-ctl.1
        DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES man/libconvoy.3 DESTINATION ${CMAKE_INSTALL_MANDIR}/man3)

# bash-completion loads completions/convoy the first time convoy is completed,
# looking under every $XDG_DATA_DIRS entry (/usr/local/share and /usr/share
# by default). The folder is bash-completion's completionsdir as pkg-config
# gives it, with its prefix and datadir taken as ours so that the file stays
# under the install prefix (a /usr/local or staged install does not write
# into /usr/share); without bash-completion's pkg-config file,
# DATADIR/bash-completion/completions. CONVOY_BASH_COMPLETION_DIR overrides it
# (relative to the prefix, or absolute).
set(CONVOY_BASH_COMPLETION_DIR "" CACHE STRING
    "Folder for the bash completion (default: bash-completion's completionsdir under the prefix)")
set(CONVOY_COMPLETION_DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
if(CONVOY_BASH_COMPLETION_DIR)
  set(CONVOY_COMPLETION_DESTINATION ${CONVOY_BASH_COMPLETION_DIR})
elseif(PKG_CONFIG_EXECUTABLE)
  execute_process(
    COMMAND ${PKG_CONFIG_EXECUTABLE} --define-variable=prefix=${CMAKE_INSTALL_PREFIX}
            --define-variable=datadir=${CMAKE_INSTALL_FULL_DATADIR}
            --variable=completionsdir bash-completion
    OUTPUT_VARIABLE convoy_completionsdir
    OUTPUT_STRIP_TRAILING_WHITESPACE
    RESULT_VARIABLE convoy_pkg_rc
    ERROR_QUIET)
  if(convoy_pkg_rc EQUAL 0 AND IS_ABSOLUTE "${convoy_completionsdir}")
    file(RELATIVE_PATH convoy_rel ${CMAKE_INSTALL_PREFIX} ${convoy_completionsdir})
    if(NOT convoy_rel MATCHES "^\\.\\.")
      set(CONVOY_COMPLETION_DESTINATION ${convoy_rel})
    endif()
  endif()
endif()
install(FILES completion/convoy.bash DESTINATION ${CONVOY_COMPLETION_DESTINATION} RENAME convoy)
